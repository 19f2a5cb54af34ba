import { randomBytes } from 'node:crypto';
import { createLogger } from '@open-finance-gateway/common/logger';
import { createTokenCipher } from '../../src/auth/token-cipher.js';
import type { RedisConnectionSettings } from '../../src/config/redis-settings.js';
import { createRedisClient } from '../../src/redis/redis-client.js';
import type { PlatformReads } from '../../src/user-data/kept-platform.js';
import { createKeptReads } from '../../src/user-data/kept-reads.js';
import type { KeptRow } from '../../src/user-data/ledger-rows.js';
import { createMemoryUserDataStore } from '../../src/user-data/memory-user-data-store.js';
import { createRedisUserDataStore } from '../../src/user-data/redis-user-data-store.js';
import type { UserDataLimits, UserDataStore } from '../../src/user-data/user-data-store.js';
import { WebhookChanges } from '../../src/user-data/webhook-changes.js';
import { track } from './leftovers.js';
import { SHARED_REDIS, testPrefix } from './redis.js';

const logger = createLogger({ level: 'silent' });

export const KEPT_LIMITS: UserDataLimits = {
  maxAgeMs: 60_000,
  retentionMs: 120_000,
  userMaxBytes: 1024 * 1024,
  budgetBytes: 64 * 1024 * 1024,
};

/** A user-data store on Redis (the shared one unless given), under a key prefix of the test's own. */
export async function redisUserDataStore(
  options: { connection?: RedisConnectionSettings; commandTimeoutMs?: number; limits?: Partial<UserDataLimits> } = {},
): Promise<UserDataStore> {
  const redis = createRedisClient({
    connection: options.connection ?? SHARED_REDIS,
    commandTimeoutMs: options.commandTimeoutMs ?? 1_000,
    logger,
    role: 'test',
  });
  await redis.connect();
  track(() => redis.disconnect());
  return createRedisUserDataStore({
    ...KEPT_LIMITS,
    ...options.limits,
    redis,
    keyPrefix: testPrefix(),
    cipher: createTokenCipher([{ id: 'k1', key: randomBytes(32) }]),
    clock: Date.now,
  });
}

/** The user-data store kinds a kept-data test runs on, each opened afresh. */
export const KEPT_STORES = [
  [
    'memory',
    async (limits: Partial<UserDataLimits> = {}) =>
      createMemoryUserDataStore({ ...KEPT_LIMITS, ...limits, clock: Date.now }),
  ],
  ['redis', (limits: Partial<UserDataLimits> = {}) => redisUserDataStore({ limits })],
] as const;

/** A settled row of `acc_1` (or `account`), posted on a day of November 2026. */
export const keptRow = (id: string, day: number, account = 'acc_1'): KeptRow & Record<string, unknown> => ({
  _id: id,
  _account: account,
  date: `2026-11-${String(day).padStart(2, '0')}T00:00:00.000Z`,
});

export const keptUser = () => `user_${randomBytes(6).toString('hex')}`;

/**
 * A platform whose answers the test sets, counting calls; `hold(kind)` makes the next call of a
 * kind wait until let go (answering what the platform said when the call was made), and tells when
 * it began. `fail(kind)` makes every call of a kind fail until `fail(undefined)`. With `pageSize`,
 * transactions are listed as the platform does: filtered by account and dates, a page at a time.
 */
export function keptPlatform(options: { pageSize?: number } = {}) {
  const world = {
    account: { _id: 'acc_1', balance: 1 } as Record<string, unknown>,
    rows: [keptRow('trans_1', 1)] as Array<KeptRow & Record<string, unknown>>,
  };
  const calls: string[] = [];
  let held: { kind: string; began: () => void; answer: Promise<void> } | undefined;
  let failing: string | undefined;
  const call = async <T>(kind: string, answer: () => T): Promise<T> => {
    calls.push(kind);
    if (failing === kind) throw new Error(`the platform failed (${kind})`);
    if (held?.kind === kind) {
      const { began, answer: letGo } = held;
      held = undefined;
      const before = answer(); // what the platform said when the call was made
      began();
      await letGo;
      return before;
    }
    return answer();
  };
  const reads: PlatformReads = {
    getMe: () => call('me', () => ({ _id: 'user_1' })),
    listAccounts: () => call('accounts', () => [structuredClone(world.account) as { _id: string }]),
    getAccount: () => call('account', () => structuredClone(world.account) as { _id: string }),
    listTransactions: (filter, cursor) =>
      call('transactions', () => {
        if (options.pageSize === undefined) return { items: structuredClone(world.rows), next: null };
        const listed = world.rows.filter(
          (row) =>
            (filter.accountId === undefined || row._account === filter.accountId) &&
            (filter.start === undefined || row.date > filter.start) &&
            (filter.end === undefined || row.date <= filter.end),
        );
        const from = Number(cursor ?? 0);
        const next = from + options.pageSize < listed.length ? String(from + options.pageSize) : null;
        return { items: structuredClone(listed.slice(from, from + options.pageSize)), next };
      }),
    getTransactionsByIds: (ids) =>
      call('ids', () => structuredClone(world.rows.filter((candidate) => ids.includes(candidate._id)))),
  };
  return {
    world,
    calls,
    reads,
    hold(kind: string) {
      let began!: () => void;
      let letGo!: () => void;
      const started = new Promise<void>((resolve) => (began = resolve));
      held = { kind, began, answer: new Promise<void>((resolve) => (letGo = resolve)) };
      return { started, letGo };
    },
    fail(kind: string | undefined) {
      failing = kind;
    },
  };
}

/** A user of the kept reads over `store` (a minute's maximum age), their platform, and the webhooks' changes. */
export function keptScene(store: UserDataStore, platform: Parameters<typeof keptPlatform>[0] = {}) {
  const u = keptUser();
  const upstream = keptPlatform(platform);
  const data = createKeptReads({ store, clock: Date.now, maxAgeMs: 60_000 }).forUser(u, () => upstream.reads);
  return { u, upstream, data, changes: new WebhookChanges(store) };
}
