import { Cluster } from 'ioredis';
import {
  createRedisClient,
  nodeOptions,
  retryDelayMs,
  watchClient,
  type RedisClient,
  type RedisClientOptions,
} from './redis-client.js';
import { ClusterListener, type NodeAddress } from './redis-cluster-listener.js';

/**
 * An instance's Redis listener: the Redis client in subscribe mode (SUBSCRIBE), as the event
 * reader, the session endings and the readiness probe use it. It subscribes to nothing again by itself after a reconnection (or, on a Cluster, a
 * move to another node): on every 'ready', each owner subscribes to what it follows, then reads
 * what it missed, since announcements sent while no connection listened are gone.
 */
export interface RedisListener {
  /** 'ready' while connected. */
  readonly status: string;
  connect(): Promise<void>;
  subscribe(...channels: string[]): Promise<unknown>;
  unsubscribe(...channels: string[]): Promise<unknown>;
  ping(): Promise<unknown>;
  disconnect(): void;
  on(event: 'message', listener: (channel: string, message: string) => void): unknown;
  on(event: 'ready' | 'close', listener: () => void): unknown;
  once(event: 'ready', listener: () => void): unknown;
  off(event: 'message', listener: (channel: string, message: string) => void): unknown;
  off(event: 'ready' | 'close', listener: () => void): unknown;
}

export interface RedisListenerOptions extends RedisClientOptions {
  /** The commands' client: on a Cluster, the listener goes to the nodes it knows. */
  commands?: RedisClient;
}

/**
 * The listener for the topology: the same ioredis connection as for commands on a single
 * server or behind Sentinel (it reconnects, or follows the new primary, and says 'ready'); on a
 * Cluster, a connection to one node at a time that moves when its node goes (`ClusterListener`).
 */
export function createRedisListener(options: RedisListenerOptions): RedisListener {
  const { connection } = options;
  if (connection.mode !== 'cluster') return createRedisClient({ ...options, autoResubscribe: false });
  const listener = new ClusterListener({
    nodes: () => [...knownNodes(options.commands), ...connection.nodes],
    redisOptions: nodeOptions({ ...options, autoResubscribe: false }),
    retryDelayMs,
  });
  watchClient(listener, options);
  return listener;
}

/** The nodes a Cluster connection knows now (its last slots refresh follows failovers); none elsewhere. */
function knownNodes(redis: RedisClient | undefined): NodeAddress[] {
  if (!(redis instanceof Cluster)) return [];
  return redis.nodes('all').flatMap(({ options: { host, port } }) => (host && port ? [{ host, port }] : []));
}
