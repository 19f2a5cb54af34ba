import type { Clock } from '@open-finance-gateway/common/clock';
import type { Logger } from '@open-finance-gateway/common/logger';
import type { ConnectionRecord, ConnectionStore } from '../auth/bank-connection-store.js';
import { createMemoryConnectionStore } from '../auth/memory-bank-connection-store.js';
import { createMemoryOAuthStates } from '../auth/memory-oauth-state-store.js';
import { localSessionEndings } from '../auth/memory-session-endings.js';
import { createMemorySessionStore } from '../auth/memory-session-store.js';
import type { OAuthStateStore } from '../auth/oauth-state-store.js';
import { createRedisConnections } from '../auth/redis-bank-connection-store.js';
import { createRedisOAuthStates } from '../auth/redis-oauth-state-store.js';
import { createRedisSessionEndings } from '../auth/redis-session-endings.js';
import { createRedisSessionStore } from '../auth/redis-session-store.js';
import type { SessionEndingsBus } from '../auth/session-endings.js';
import type { SessionRecord, SessionStore } from '../auth/session-store.js';
import { createTokenCipher } from '../auth/token-cipher.js';
import type { GatewayConfig } from '../config/config.js';
import { createMemoryDeliveryMarks } from '../event-log/delivery-marks.js';
import type { PubSub } from '../event-log/event-log.js';
import { createMemoryPubSub } from '../event-log/memory-event-log.js';
import { createRedisPubSub } from '../event-log/redis-event-log.js';
import type { CreationKeyStore } from '../idempotency/idempotency-key-store.js';
import { createMemoryCreationKeys } from '../idempotency/memory-idempotency-key-store.js';
import { createRedisCreationKeys } from '../idempotency/redis-idempotency-key-store.js';
import { connectRedis, createRedisClient, type RedisClient } from '../redis/redis-client.js';
import { createRedisHealthProbe, type StoreHealth } from '../redis/redis-health.js';
import { createRedisSubscriber, type SubscriberConnection } from '../redis/redis-listener.js';
import { createReplicaWait } from '../redis/redis-replica-wait.js';
import type { DeadLetterStore } from '../webhooks/dead-letter-store.js';
import { deliveryLeaseMs, type DeliveryLedger } from '../webhooks/delivery-ledger.js';
import { createMemoryDeadLetters } from '../webhooks/memory-dead-letter-store.js';
import { createMemoryDeliveryLedger } from '../webhooks/memory-delivery-ledger.js';
import { createMemoryRoutingHandles } from '../webhooks/memory-routing-handle-store.js';
import { createRedisDeadLetters } from '../webhooks/redis-dead-letter-store.js';
import { createRedisDeliveryLedger } from '../webhooks/redis-delivery-ledger.js';
import { createRedisRoutingHandles } from '../webhooks/redis-routing-handle-store.js';
import type { RoutingHandleStore } from '../webhooks/routing-handle-store.js';

/** Everything the gateway keeps between requests, in one place: memory for one instance, or Redis. */
export interface GatewayStores {
  kind: 'memory' | 'redis';
  sessions: SessionStore;
  /** Each app user's bank connection (their platform token), beyond any one session. */
  connections: ConnectionStore;
  oauthStates: OAuthStateStore;
  ledger: DeliveryLedger;
  handles: RoutingHandleStore;
  deadLetters: DeadLetterStore;
  /** Idempotency keys derived for money-moving creations (see CreationKeyStore). */
  creationKeys: CreationKeyStore;
  sessionEndings: SessionEndingsBus;
  /** The per-user event log where webhooks and subscriptions meet. */
  pubsub: PubSub;
  /** The shared Redis connection, for stores that join later (events); undefined in memory. */
  redis: RedisClient | undefined;
  /** Whether what the gateway needs to accept work answers, by a real round trip (readiness). */
  health(): Promise<StoreHealth>;
  /**
   * The platform tokens this process alone holds and forgets when it stops (in memory); empty on
   * Redis, where connections outlive the process.
   */
  tokensLostOnStop(): Array<{ userId: string; token: string }>;
  close(): Promise<void>;
}

export interface StoreDependencies {
  config: GatewayConfig;
  clock: Clock;
  logger: Logger;
  /** A session lapsed in the in-memory store (Redis expires keys itself). */
  onSessionExpired(sessionKey: string, record: SessionRecord): void;
  /** A bank connection was idle past CONNECTION_IDLE_DAYS and is gone from the store: revoke its token. */
  onConnectionExpired(userId: string, record: ConnectionRecord): void;
  /** How often idle connections are looked for (tests shorten it). @default 60000 */
  connectionSweepIntervalMs?: number;
  /** A Redis connection was lost or came back. */
  onRedisConnectionChange?(role: string, state: 'lost' | 'restored'): void;
}

export async function createStores(deps: StoreDependencies): Promise<GatewayStores> {
  const connectionOptions: ConnectionOptions = {
    clock: deps.clock,
    idleMs: deps.config.connectionIdleMs,
    onExpired: deps.onConnectionExpired,
    sweepIntervalMs: deps.connectionSweepIntervalMs,
  };
  return deps.config.redis
    ? createRedisStores(deps, deps.config.redis, connectionOptions)
    : createMemoryStores(deps, connectionOptions);
}

/** How every connection store expires idle connections. */
interface ConnectionOptions {
  clock: Clock;
  idleMs: number;
  onExpired(userId: string, record: ConnectionRecord): void;
  sweepIntervalMs: number | undefined;
}

type RedisSettings = NonNullable<GatewayConfig['redis']>;

function createMemoryStores(
  { config, clock, logger, onSessionExpired }: StoreDependencies,
  connectionOptions: ConnectionOptions,
): GatewayStores {
  logger.warn(
    'state is in process memory: run a single instance; sessions, bank connections, deliveries and events are lost on restart (set REDIS_URL to share them)',
  );
  const connections = createMemoryConnectionStore(connectionOptions);
  const sessions = createMemorySessionStore({
    clock,
    idleTimeoutMs: config.session.idleTimeoutMs,
    onExpired: onSessionExpired,
  });
  // One set of delivery marks: the ledger claims, the event log and dead letters mark done.
  const marks = createMemoryDeliveryMarks({ clock });
  return {
    kind: 'memory',
    sessions,
    connections,
    oauthStates: createMemoryOAuthStates({ maxPending: 10_000 }),
    ledger: createMemoryDeliveryLedger({ marks, leaseMs: deliveryLeaseMs(0) }),
    handles: createMemoryRoutingHandles(),
    deadLetters: createMemoryDeadLetters({ marks }),
    creationKeys: createMemoryCreationKeys({ clock }),
    sessionEndings: localSessionEndings,
    pubsub: createMemoryPubSub({ logger, clock, retentionMs: config.eventRetentionMs, marks }),
    redis: undefined,
    health: async () => ({ ok: true }),
    tokensLostOnStop: () => connections.held(),
    async close() {
      await sessions.close();
      await connections.close();
    },
  };
}

/** Connects the two Redis connections the stores share; any failure on the way is "could not reach Redis". */
async function createRedisStores(
  deps: StoreDependencies,
  settings: RedisSettings,
  connectionOptions: ConnectionOptions,
): Promise<GatewayStores> {
  const { connection, commandTimeoutMs } = settings;
  const optionsFor = (role: string) => ({
    connection,
    commandTimeoutMs,
    logger: deps.logger,
    role,
    onConnectionChange: (state: 'lost' | 'restored') => deps.onRedisConnectionChange?.(role, state),
  });
  const redis = createRedisClient(optionsFor('commands'));
  // Subscribe mode takes a connection of its own: session endings and event announcements.
  const subscriber = createRedisSubscriber({ ...optionsFor('subscriber'), commands: redis });
  try {
    await Promise.all([connectRedis(redis), connectRedis(subscriber)]);
    return await redisStoresOn(redis, subscriber, deps, settings, connectionOptions);
  } catch (error) {
    for (const client of [redis, subscriber]) client.disconnect();
    throw new Error(
      `could not reach Redis (${connection.where}, REDIS_URL): ${error instanceof Error ? error.message : String(error)}`,
    );
  }
}

async function redisStoresOn(
  redis: RedisClient,
  subscriber: SubscriberConnection,
  { config, clock, logger, onSessionExpired }: StoreDependencies,
  { connection, keyPrefix, commandTimeoutMs, tokenKeys, waitReplicas }: RedisSettings,
  connectionOptions: ConnectionOptions,
): Promise<GatewayStores> {
  const options = { redis, keyPrefix };
  const waitForReplicas = createReplicaWait(redis, waitReplicas, commandTimeoutMs);
  const sessionEndings = await createRedisSessionEndings({ redis, subscriber, keyPrefix, logger });
  logger.info(
    { keyPrefix, redis: connection.where },
    'state is on Redis: shared by every instance, kept across restarts',
  );
  const cipher = createTokenCipher(tokenKeys);
  const connections = createRedisConnections({ ...options, ...connectionOptions, cipher, logger });
  const probe = createRedisHealthProbe({ clients: [redis, subscriber], clock });
  const sessions = createRedisSessionStore({
    redis,
    keyPrefix,
    cipher,
    clock,
    idleTimeoutMs: config.session.idleTimeoutMs,
    logger,
    onExpired: onSessionExpired,
  });
  return {
    kind: 'redis',
    sessions,
    connections,
    oauthStates: createRedisOAuthStates(options),
    ledger: createRedisDeliveryLedger({ ...options, leaseMs: deliveryLeaseMs(commandTimeoutMs) }),
    handles: createRedisRoutingHandles({ ...options, waitForReplicas }),
    deadLetters: createRedisDeadLetters({ ...options, waitForReplicas }),
    creationKeys: createRedisCreationKeys(options),
    sessionEndings,
    pubsub: createRedisPubSub({
      redis,
      subscriber,
      keyPrefix,
      clock,
      retentionMs: config.eventRetentionMs,
      logger,
      waitForReplicas,
    }),
    redis,
    health: probe.check,
    tokensLostOnStop: () => [],
    async close() {
      await sessions.close();
      await connections.close();
      redis.disconnect();
      subscriber.disconnect();
    },
  };
}
