import { Cluster, Redis, type RedisOptions } from 'ioredis';
import type { Logger } from '@open-finance-gateway/common/logger';
import type { RedisConnectionSettings } from '../config/redis-settings.js';
import { StoreUnavailableError } from '../lib/store-unavailable.js';

/** A connection to any topology: the stores use only what standalone, Sentinel and Cluster share. */
export type RedisClient = Redis | Cluster;

export interface RedisClientOptions {
  connection: RedisConnectionSettings;
  commandTimeoutMs: number;
  logger: Logger;
  /** For logs: 'commands', 'listener'. */
  role: string;
  /** Told when an established connection is lost or comes back (not on the first connect). */
  onClientChange?: (state: 'lost' | 'restored') => void;
  /** Subscribe again after a reconnection (ioredis's default); off where the owners do it. */
  autoResubscribe?: boolean;
}

/**
 * What every connection to one server uses: every command bounded by `commandTimeoutMs`, no
 * offline queue (while disconnected a command fails at once rather than waiting), one retry per
 * request, the deployment's credentials and TLS.
 */
export function nodeOptions(options: RedisClientOptions): RedisOptions {
  const { connection } = options;
  return {
    lazyConnect: true,
    commandTimeout: options.commandTimeoutMs,
    connectTimeout: Math.max(options.commandTimeoutMs, 2_000),
    maxRetriesPerRequest: 1,
    enableOfflineQueue: false,
    autoResubscribe: options.autoResubscribe ?? true,
    connectionName: `ofg-${options.role}`,
    username: connection.username,
    password: connection.password,
    tls: connection.tls ? {} : undefined,
  };
}

/** The wait before reconnecting, by attempt: capped backoff. */
export const retryDelayMs = (attempt: number) => Math.min(100 * 2 ** attempt, 2_000);

/**
 * An ioredis connection with the defaults a request path needs (`nodeOptions`), reconnecting
 * forever in the background with capped backoff. The same options for a single server, a
 * Sentinel-monitored primary or a Cluster.
 */
export function createRedisClient(options: RedisClientOptions): RedisClient {
  const { connection } = options;
  const common = nodeOptions(options);
  let client: RedisClient;
  if (connection.mode === 'cluster') {
    client = new Cluster(connection.nodes, {
      lazyConnect: true,
      enableOfflineQueue: false,
      clusterRetryStrategy: retryDelayMs,
      // A moved slot or a failover answers MOVED/TRYAGAIN: follow it within the command budget.
      retryDelayOnFailover: 100,
      retryDelayOnTryAgain: 100,
      redisOptions: common,
    });
  } else if (connection.mode === 'sentinel') {
    client = new Redis({
      ...common,
      sentinels: connection.nodes,
      name: connection.sentinelMaster,
      sentinelPassword: connection.sentinelPassword,
      db: connection.db,
      role: 'master',
      retryStrategy: retryDelayMs,
      sentinelRetryStrategy: retryDelayMs,
      // After a failover the old primary answers READONLY: reconnect to the new one.
      reconnectOnError: (error) => (error.message.startsWith('READONLY') ? 2 : false),
    });
  } else {
    client = new Redis({
      ...common,
      host: connection.nodes[0]!.host,
      port: connection.nodes[0]!.port,
      db: connection.db,
      retryStrategy: retryDelayMs,
    });
  }
  watchClient(client, options);
  return client;
}

/** What `watchClient` listens to: any connection's events. */
interface ClientEvents {
  on(event: 'ready' | 'close', listener: () => void): unknown;
  on(event: 'error', listener: (error: Error) => void): unknown;
}

/** Logs (and reports) a connection lost or back, once each, not the first connect; and its errors. */
export function watchClient(client: ClientEvents, options: RedisClientOptions): void {
  let wasReady = false;
  let connected = false;
  client.on('ready', () => {
    if (wasReady) {
      options.logger.info({ role: options.role }, 'redis connection restored');
      options.onClientChange?.('restored');
    }
    wasReady = true;
    connected = true;
  });
  client.on('close', () => {
    // ioredis emits close again for every failed reconnection attempt: report the loss once.
    if (!connected) return;
    connected = false;
    options.logger.warn({ role: options.role }, 'redis connection lost');
    options.onClientChange?.('lost');
  });
  client.on('error', (error: Error) =>
    options.logger.warn({ role: options.role, err: { message: error.message } }, 'redis connection error'),
  );
}

/**
 * Connects, resolving at the first 'ready'. A Cluster whose ready check fails (CLUSTER INFO says
 * `cluster_state:fail`, as mid-failover, or does not answer within the command timeout under load)
 * reconnects by itself and becomes ready later, but the promise its `connect()` returned then never
 * settles: a gateway starting at such a moment waited on it for good. A failure `connect()`
 * reports (no node answers) still fails the start.
 */
export function connectRedis(client: {
  connect(): Promise<void>;
  once(event: 'ready', listener: () => void): unknown;
  off(event: 'ready', listener: () => void): unknown;
}): Promise<void> {
  return new Promise((resolve, reject) => {
    const ready = () => resolve();
    client.once('ready', ready);
    client.connect().then(resolve, (error: unknown) => {
      client.off('ready', ready);
      reject(error instanceof Error ? error : new Error(String(error)));
    });
  });
}

/** Runs a store operation, turning any Redis failure into StoreUnavailableError. */
export async function storeCall<T>(operation: () => Promise<T>): Promise<T> {
  try {
    return await operation();
  } catch (error) {
    if (error instanceof StoreUnavailableError) throw error;
    throw new StoreUnavailableError(error);
  }
}

/** EXEC of a MULTI, failing if the transaction or any command in it failed (ioredis reports per command). */
export async function execAll(multi: { exec(): Promise<Array<[Error | null, unknown]> | null> }): Promise<unknown[]> {
  const results = await multi.exec();
  if (results === null) throw new StoreUnavailableError('transaction aborted');
  const failed = results.find(([error]) => error !== null);
  if (failed) throw new StoreUnavailableError(failed[0]);
  return results.map(([, value]) => value);
}
