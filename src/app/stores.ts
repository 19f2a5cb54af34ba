import type { Clock } from '@open-finance-gateway/common/clock';
import type { Logger } from '@open-finance-gateway/common/logger';
import type { BankConnectionRecord, BankConnectionStore } from '../auth/bank-connection-store.js';
import { createMemoryBankConnectionStore } from '../auth/memory-bank-connection-store.js';
import { createMemoryOAuthStateStore } from '../auth/memory-oauth-state-store.js';
import { createMemorySessionEndings } from '../auth/memory-session-endings.js';
import { createMemorySessionStore } from '../auth/memory-session-store.js';
import type { OAuthStateStore } from '../auth/oauth-state-store.js';
import { createRedisBankConnectionStore } from '../auth/redis-bank-connection-store.js';
import { createRedisOAuthStateStore } from '../auth/redis-oauth-state-store.js';
import { createRedisSessionEndings } from '../auth/redis-session-endings.js';
import { createRedisSessionStore } from '../auth/redis-session-store.js';
import type { SessionEndingsBus } from '../auth/session-endings.js';
import type { SessionRecord, SessionStore } from '../auth/session-store.js';
import { createTokenCipher } from '../auth/token-cipher.js';
import type { GatewayConfig } from '../config/config.js';
import { createMemoryDeliveryMarks } from '../event-log/delivery-marks.js';
import type { EventLog } from '../event-log/event-log.js';
import { createMemoryEventLog } from '../event-log/memory-event-log.js';
import { createRedisEventLog } from '../event-log/redis-event-log.js';
import type { IdempotencyKeyStore } from '../idempotency/idempotency-key-store.js';
import { createMemoryIdempotencyKeyStore } from '../idempotency/memory-idempotency-key-store.js';
import { createRedisIdempotencyKeyStore } from '../idempotency/redis-idempotency-key-store.js';
import { connectRedis, createRedisClient, type RedisClient } from '../redis/redis-client.js';
import { createRedisHealthProbe, type StoreHealth } from '../redis/redis-health.js';
import { createRedisListener, type RedisListener } from '../redis/redis-listener.js';
import { createReplicaWait } from '../redis/redis-replica-wait.js';
import { createMemoryUserDataStore } from '../user-data/memory-user-data-store.js';
import { createShapeCensus } from '../user-data/redis-shape-census.js';
import { createRedisUserDataStore } from '../user-data/redis-user-data-store.js';
import type { UserDataStore, UserDataStoreEvents } from '../user-data/user-data-store.js';
import type { DeadLetterStore } from '../webhooks/dead-letter-store.js';
import { deliveryLeaseMs, type DeliveryLedger } from '../webhooks/delivery-ledger.js';
import { createMemoryDeadLetterStore } from '../webhooks/memory-dead-letter-store.js';
import { createMemoryDeliveryLedger } from '../webhooks/memory-delivery-ledger.js';
import { createMemoryRoutingHandleStore } from '../webhooks/memory-routing-handle-store.js';
import { createRedisDeadLetterStore } from '../webhooks/redis-dead-letter-store.js';
import { createRedisDeliveryLedger } from '../webhooks/redis-delivery-ledger.js';
import { createRedisRoutingHandleStore } from '../webhooks/redis-routing-handle-store.js';
import type { RoutingHandleStore } from '../webhooks/routing-handle-store.js';

/** Everything the gateway keeps between requests, in one place: memory for one instance, or Redis. */
export interface GatewayStores {
  kind: 'memory' | 'redis';
  sessions: SessionStore;
  /** Each app user's bank connection (their platform token), beyond any one session. */
  bankConnections: BankConnectionStore;
  oauthStates: OAuthStateStore;
  ledger: DeliveryLedger;
  handles: RoutingHandleStore;
  deadLetters: DeadLetterStore;
  /** Idempotency keys derived for money-moving creations (see IdempotencyKeyStore). */
  idempotencyKeys: IdempotencyKeyStore;
  sessionEndings: SessionEndingsBus;
  /** The per-user event log where webhooks and subscriptions meet. */
  eventLog: EventLog;
  /** What the platform said of each user's accounts and transactions; none with USER_DATA_STORE=off. */
  userData: UserDataStore | undefined;
  /** The shared Redis client, for stores that join later; undefined in memory. */
  redis: RedisClient | undefined;
  /** Whether what the gateway needs to accept work answers, by a real round trip (readiness). */
  health(): Promise<StoreHealth>;
  /**
   * The platform tokens this process alone holds and forgets when it stops (in memory); empty on
   * Redis, where bank connections outlive the process.
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
  /** A bank connection was idle past BANK_CONNECTION_IDLE_DAYS and is gone from the store: revoke its token. */
  onBankConnectionExpired(userId: string, record: BankConnectionRecord): void;
  /** How often idle bank connections are looked for (tests shorten it). @default 60000 */
  bankConnectionSweepIntervalMs?: number;
  /** A Redis client (commands or listener) was lost or came back. */
  onRedisClientChange?(role: string, state: 'lost' | 'restored'): void;
  /** What the user-data store reports (evictions, bytes per user), for the metrics. */
  userDataEvents?: UserDataStoreEvents;
}

export async function createStores(deps: StoreDependencies): Promise<GatewayStores> {
  const bankConnectionOptions: BankConnectionOptions = {
    clock: deps.clock,
    idleMs: deps.config.bankConnectionIdleMs,
    onExpired: deps.onBankConnectionExpired,
    sweepIntervalMs: deps.bankConnectionSweepIntervalMs,
  };
  return deps.config.redis
    ? createRedisStores(deps, deps.config.redis, bankConnectionOptions)
    : createMemoryStores(deps, bankConnectionOptions);
}

/** How every bank connection store expires idle bank connections. */
interface BankConnectionOptions {
  clock: Clock;
  idleMs: number;
  onExpired(userId: string, record: BankConnectionRecord): void;
  sweepIntervalMs: number | undefined;
}

type RedisSettings = NonNullable<GatewayConfig['redis']>;

function createMemoryStores(
  { config, clock, logger, onSessionExpired, userDataEvents }: StoreDependencies,
  bankConnectionOptions: BankConnectionOptions,
): GatewayStores {
  logger.warn(
    'state is in process memory: run a single instance; sessions, bank connections, deliveries and events are lost on restart (set REDIS_URL to share them)',
  );
  const bankConnections = createMemoryBankConnectionStore(bankConnectionOptions);
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
    bankConnections,
    oauthStates: createMemoryOAuthStateStore({ maxPending: 10_000 }),
    ledger: createMemoryDeliveryLedger({ marks, leaseMs: deliveryLeaseMs(0) }),
    handles: createMemoryRoutingHandleStore(),
    deadLetters: createMemoryDeadLetterStore({ marks }),
    idempotencyKeys: createMemoryIdempotencyKeyStore({ clock }),
    sessionEndings: createMemorySessionEndings(clock),
    eventLog: createMemoryEventLog({ logger, clock, retentionMs: config.eventRetentionMs, marks }),
    userData:
      config.userData.store === 'memory'
        ? createMemoryUserDataStore({ ...config.userData, ...userDataEvents, clock })
        : undefined,
    redis: undefined,
    health: async () => ({ ok: true }),
    tokensLostOnStop: () => bankConnections.held(),
    async close() {
      await sessions.close();
      await bankConnections.close();
    },
  };
}

/**
 * The user-data store on Redis, when it is on: it announces that this instance keeps it current,
 * and serves kept data only while every instance sharing the Redis does (redis-shape-census.ts).
 */
async function redisUserData(
  redis: RedisClient,
  listener: RedisListener,
  { config, clock, logger, userDataEvents }: Pick<StoreDependencies, 'config' | 'clock' | 'logger' | 'userDataEvents'>,
  cipher: ReturnType<typeof createTokenCipher>,
  waitForReplicas: ReturnType<typeof createReplicaWait>,
): Promise<UserDataStore | undefined> {
  if (config.userData.store !== 'redis' || !config.redis) return undefined;
  const { keyPrefix } = config.redis;
  const census = createShapeCensus({ redis, listener, keyPrefix, clock, logger });
  await census.announce();
  return createRedisUserDataStore({
    ...config.userData,
    ...userDataEvents,
    redis,
    keyPrefix,
    cipher,
    clock,
    waitForReplicas,
    census,
  });
}

/** Connects the two Redis clients the stores share; any failure on the way is "could not reach Redis". */
async function createRedisStores(
  deps: StoreDependencies,
  settings: RedisSettings,
  bankConnectionOptions: BankConnectionOptions,
): Promise<GatewayStores> {
  const { connection, commandTimeoutMs } = settings;
  const optionsFor = (role: string) => ({
    connection,
    commandTimeoutMs,
    logger: deps.logger,
    role,
    onClientChange: (state: 'lost' | 'restored') => deps.onRedisClientChange?.(role, state),
  });
  const redis = createRedisClient(optionsFor('commands'));
  // Subscribe mode takes a connection of its own: session endings and event announcements.
  const listener = createRedisListener({ ...optionsFor('listener'), commands: redis });
  try {
    await Promise.all([connectRedis(redis), connectRedis(listener)]);
    return await redisStoresOn(redis, listener, deps, settings, bankConnectionOptions);
  } catch (error) {
    for (const client of [redis, listener]) client.disconnect();
    throw new Error(
      `could not reach Redis (${connection.where}, REDIS_URL): ${error instanceof Error ? error.message : String(error)}`,
    );
  }
}

async function redisStoresOn(
  redis: RedisClient,
  listener: RedisListener,
  { config, clock, logger, onSessionExpired, userDataEvents }: StoreDependencies,
  { connection, keyPrefix, commandTimeoutMs, tokenKeys, waitReplicas }: RedisSettings,
  bankConnectionOptions: BankConnectionOptions,
): Promise<GatewayStores> {
  const options = { redis, keyPrefix };
  const waitForReplicas = createReplicaWait(redis, waitReplicas, commandTimeoutMs);
  const cipher = createTokenCipher(tokenKeys);
  // Announced before the session-ended channel every instance follows is joined: an instance is
  // never counted, even for a moment, as one that does not keep the user-data store current.
  const userData = await redisUserData(
    redis,
    listener,
    { config, clock, logger, userDataEvents },
    cipher,
    waitForReplicas,
  );
  const sessionEndings = await createRedisSessionEndings({ redis, listener, keyPrefix, logger });
  logger.info(
    { keyPrefix, redis: connection.where },
    'state is on Redis: shared by every instance, kept across restarts',
  );
  const bankConnections = createRedisBankConnectionStore({ ...options, ...bankConnectionOptions, cipher, logger });
  const probe = createRedisHealthProbe({ clients: [redis, listener], clock });
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
    bankConnections,
    oauthStates: createRedisOAuthStateStore(options),
    ledger: createRedisDeliveryLedger({ ...options, leaseMs: deliveryLeaseMs(commandTimeoutMs) }),
    handles: createRedisRoutingHandleStore({ ...options, waitForReplicas }),
    deadLetters: createRedisDeadLetterStore({ ...options, waitForReplicas }),
    idempotencyKeys: createRedisIdempotencyKeyStore(options),
    sessionEndings,
    eventLog: createRedisEventLog({
      redis,
      listener,
      keyPrefix,
      clock,
      retentionMs: config.eventRetentionMs,
      logger,
      waitForReplicas,
      markKeptData: userData !== undefined,
    }),
    userData,
    redis,
    health: probe.check,
    tokensLostOnStop: () => [],
    async close() {
      await sessions.close();
      await bankConnections.close();
      redis.disconnect();
      listener.disconnect();
    },
  };
}
