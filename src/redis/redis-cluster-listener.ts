import { EventEmitter } from 'node:events';
import { setTimeout as delay } from 'node:timers/promises';
import { Redis, type RedisOptions } from 'ioredis';

export interface NodeAddress {
  host: string;
  port: number;
}

export interface ClusterListenerOptions {
  /** Where it may connect, most current first: the nodes the commands' Cluster knows, then the seeds. */
  nodes(): NodeAddress[];
  /** For each node's connection: timeouts, credentials, TLS, connection name. */
  redisOptions: RedisOptions;
  /** The wait after a round in which no known node answered, by round. */
  retryDelayMs(round: number): number;
}

const keyOf = (node: NodeAddress) => `${node.host}:${node.port}`;

/**
 * The Redis listener on a Cluster: a plain connection to one node at a time (classic
 * pub/sub is broadcast over the cluster bus, so any node hears every channel). When it ends (the
 * node died or was cut off) it moves to another known node and says so as any connection does:
 * 'close', then 'ready' once the new one answers. It subscribes to nothing again by itself: on
 * 'ready' its owners subscribe to what they follow and read what was announced while nobody
 * listened.
 *
 * ioredis's own Cluster pub/sub also moves when its node goes, but emits neither event, so the
 * event reader never learnt that announcements had been missed (they waited for the user's next
 * event, or the 30 s reconcile). It also subscribes the new connection only to the channels of the
 * last one whose own re-subscription succeeded.
 */
export class ClusterListener extends EventEmitter {
  /** The connection in use: set only once it answers, cleared when it ends. */
  private current: Redis | undefined;
  /** A connection being opened, so that `disconnect` can end it too. */
  private opening: Redis | undefined;
  private closed = false;
  private readonly stopped = new AbortController();

  constructor(private readonly options: ClusterListenerOptions) {
    super();
  }

  /** As ioredis names it: 'ready' while a connection answers. */
  get status(): string {
    if (this.current) return this.current.status;
    return this.closed ? 'end' : 'connecting';
  }

  /** Connects to the first known node that answers; fails if none does, as a start must. */
  async connect(): Promise<void> {
    if (await this.tryEach(undefined)) return;
    throw new Error(`no Cluster node answered: ${this.options.nodes().map(keyOf).join(', ')}`);
  }

  subscribe(...channels: string[]): Promise<unknown> {
    return this.send((connection) => connection.subscribe(...channels));
  }

  unsubscribe(...channels: string[]): Promise<unknown> {
    return this.send((connection) => connection.unsubscribe(...channels));
  }

  ping(): Promise<unknown> {
    return this.send((connection) => connection.ping());
  }

  disconnect(): void {
    this.closed = true;
    this.stopped.abort();
    for (const connection of [this.opening, this.current]) connection?.disconnect();
  }

  /** As a connection with no offline queue: while between nodes, a command fails at once. */
  private send<T>(command: (connection: Redis) => Promise<T>): Promise<T> {
    return this.current ? command(this.current) : Promise.reject(new Error('Connection is closed.'));
  }

  /** Tries each known node once (the one just lost last); true once one answers, or on disconnect. */
  private async tryEach(lost: string | undefined): Promise<boolean> {
    for (const node of this.candidates(lost)) if (this.closed || (await this.open(node))) return true;
    return this.closed;
  }

  private async open(node: NodeAddress): Promise<boolean> {
    // No reconnection of its own: when it ends, another node may be the one that answers.
    const connection = new Redis({
      ...this.options.redisOptions,
      ...node,
      lazyConnect: true,
      retryStrategy: () => null,
    });
    connection.on('error', (error: Error) => this.listenerCount('error') > 0 && this.emit('error', error));
    this.opening = connection;
    try {
      await connection.connect();
    } catch {
      connection.disconnect();
      return false;
    } finally {
      this.opening = undefined;
    }
    if (this.closed) {
      connection.disconnect();
      return true;
    }
    connection.on('message', (channel: string, message: string) => this.emit('message', channel, message));
    connection.once('end', () => this.lost(connection, keyOf(node)));
    this.current = connection;
    this.emit('ready');
    return true;
  }

  private lost(connection: Redis, node: string): void {
    if (connection !== this.current) return;
    this.current = undefined;
    this.emit('close');
    if (!this.closed) void this.reconnect(node);
  }

  /** Until a node answers: every known node in turn, waiting longer after each round in vain. */
  private async reconnect(lost: string): Promise<void> {
    for (let round = 0; !(await this.tryEach(lost)); round += 1) {
      const wait = delay(this.options.retryDelayMs(round), undefined, { signal: this.stopped.signal, ref: false });
      await wait.catch(() => undefined);
    }
  }

  /** The known nodes once each, from a random one (spreading instances over the Cluster), `lost` last. */
  private candidates(lost: string | undefined): NodeAddress[] {
    const nodes = [...new Map(this.options.nodes().map((node) => [keyOf(node), node])).values()];
    const start = Math.floor(Math.random() * nodes.length);
    const ordered = [...nodes.slice(start), ...nodes.slice(0, start)];
    return [...ordered.filter((node) => keyOf(node) !== lost), ...ordered.filter((node) => keyOf(node) === lost)];
  }
}
