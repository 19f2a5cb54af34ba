import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { createLogger } from '@open-finance-gateway/common/logger';
import { createTokenCipher } from '../../src/auth/token-cipher.js';
import { parseRedisUrls, type RedisConnectionSettings } from '../../src/config/redis-settings.js';
import { createRedisClient } from '../../src/redis/redis-client.js';
import type { PlatformReads } from '../../src/user-data/kept-platform.js';
import { createKeptReads, type LookupResult } from '../../src/user-data/kept-reads.js';
import type { KeptRow } from '../../src/user-data/ledger-rows.js';
import { createMemoryUserDataStore } from '../../src/user-data/memory-user-data-store.js';
import { createRedisUserDataStore } from '../../src/user-data/redis-user-data-store.js';
import type { UserDataStore } from '../../src/user-data/user-data-store.js';
import { WebhookChanges } from '../../src/user-data/webhook-changes.js';
import { track } from '../support/leftovers.js';
import { SHARED_REDIS, testPrefix } from '../support/redis.js';
import { startStallableRedis } from '../support/stallable-redis.js';

const logger = createLogger({ level: 'silent' });
const LIMITS = { maxAgeMs: 60_000, retentionMs: 120_000, userMaxBytes: 1024 * 1024, budgetBytes: 64 * 1024 * 1024 };

async function redisStore(connection: RedisConnectionSettings = SHARED_REDIS, commandTimeoutMs = 1_000) {
  const redis = createRedisClient({ connection, commandTimeoutMs, logger, role: 'test' });
  await redis.connect();
  track(() => redis.disconnect());
  return createRedisUserDataStore({
    ...LIMITS,
    redis,
    keyPrefix: testPrefix(),
    cipher: createTokenCipher([{ id: 'k1', key: randomBytes(32) }]),
    clock: Date.now,
  });
}

const row = (id: string, day: number): KeptRow => ({
  _id: id,
  _account: 'acc_1',
  date: `2026-11-${String(day).padStart(2, '0')}T00:00:00.000Z`,
});

/**
 * A platform whose answers the test sets, counting calls; `hold()` makes the next call of a kind
 * wait until let go, and tells when it began (its stamp was taken before it).
 */
function platform() {
  const world = { account: { _id: 'acc_1', balance: 1 } as Record<string, unknown>, rows: [row('trans_1', 1)] };
  const calls: string[] = [];
  let held: { kind: string; began: () => void; answer: Promise<void> } | undefined;
  const call = async <T>(kind: string, answer: () => T): Promise<T> => {
    calls.push(kind);
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
    listTransactions: () => call('transactions', () => ({ items: structuredClone(world.rows), next: null })),
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
  };
}

const user = () => `user_${randomBytes(6).toString('hex')}`;

describe.each([
  ['memory', async () => createMemoryUserDataStore({ ...LIMITS, clock: Date.now })],
  ['redis', () => redisStore()],
] as const)('a read racing a webhook (%s)', (_name, open) => {
  it('never writes its older answer back after an ACCOUNT UPDATE: the next read serves what the webhook read', async () => {
    const store: UserDataStore = await open();
    const results: LookupResult[] = [];
    const kept = createKeptReads({ store, clock: Date.now, maxAgeMs: 60_000, onLookup: (r) => results.push(r) });
    const u = user();
    const upstream = platform();
    const data = kept.forUser(u, () => upstream.reads);
    const held = upstream.hold('account');
    const racing = data.account('acc_1');
    await held.started;
    upstream.world.account = { _id: 'acc_1', balance: 2 };
    await new WebhookChanges(store).apply(u, 'ACCOUNT', 'UPDATE', { item_id: 'acc_1' }, upstream.reads);
    held.letGo();
    expect(await racing).toEqual({ _id: 'acc_1', balance: 1 });
    // Nothing older was written back: the webhook's own read is served, with no platform call.
    expect(await data.account('acc_1')).toEqual({ _id: 'acc_1', balance: 2 });
    expect(upstream.calls).toEqual(['account', 'account']);
    expect(results).toEqual(['miss', 'hit']);
  });

  it.each([
    ['TRANSACTION DEFAULT_UPDATE', 'DEFAULT_UPDATE', ['trans_2', 'trans_1']],
    ['TRANSACTION DELETE', 'DELETE', []],
  ] as const)(
    'never keeps a page read before a %s: the page is read again, and then served from the ledger',
    async (_label, code, after) => {
      const store: UserDataStore = await open();
      const kept = createKeptReads({ store, clock: Date.now, maxAgeMs: 60_000 });
      const u = user();
      const upstream = platform();
      const data = kept.forUser(u, () => upstream.reads);
      await data.transactions({ accountId: 'acc_2', first: 10 }); // a ledger exists, for another account
      const held = upstream.hold('transactions');
      const racing = data.transactions({ accountId: 'acc_1', first: 10 });
      await held.started;
      if (code === 'DELETE') upstream.world.rows = [];
      else upstream.world.rows = [row('trans_2', 2), row('trans_1', 1)];
      const payload =
        code === 'DELETE'
          ? { item_id: 'acc_1', removed_transactions: ['trans_1'] }
          : { item_id: 'acc_1', new_transaction_ids: ['trans_2'] };
      await new WebhookChanges(store).apply(u, 'TRANSACTION', code, payload, upstream.reads);
      held.letGo();
      // The page read before the webhook was not kept: the read made again answers.
      expect((await racing)!.rows.map((r) => r._id)).toEqual(after);
      const calls = upstream.calls.length;
      expect((await data.transactions({ accountId: 'acc_1', first: 10 }))!.rows.map((r) => r._id)).toEqual(after);
      expect(upstream.calls.length).toBe(calls);
    },
  );

  it('never writes back after TOKEN DELETE: the user\u2019s record is gone with their reads in flight', async () => {
    const store: UserDataStore = await open();
    const kept = createKeptReads({ store, clock: Date.now, maxAgeMs: 60_000 });
    const u = user();
    const upstream = platform();
    const held = upstream.hold('me');
    const racing = kept.forUser(u, () => upstream.reads).me();
    await held.started;
    await new WebhookChanges(store).apply(u, 'TOKEN', 'DELETE', { item_id: 'user_token_x' }, undefined);
    held.letGo();
    expect(await racing).toEqual({ _id: 'user_1' });
    expect(await store.oldestKept(u)).toBeUndefined();
  });
});

describe('a stalled Redis', () => {
  it('is bypassed: reads go to the platform (never an older copy), then to the store again once it answers', async () => {
    const own = await startStallableRedis();
    const connection = parseRedisUrls(own.url, 'standalone', undefined, undefined);
    if (typeof connection === 'string') throw new Error(connection);
    const store = await redisStore(connection, 200);
    let now = Date.now();
    const results: LookupResult[] = [];
    const failures: unknown[] = [];
    const kept = createKeptReads({
      store,
      clock: () => now,
      maxAgeMs: 60_000,
      bypassMs: 5_000,
      onLookup: (result) => results.push(result),
      onStoreFailure: (error) => failures.push(error),
    });
    const u = user();
    const upstream = platform();
    const data = kept.forUser(u, () => upstream.reads);
    expect(await data.account('acc_1')).toEqual({ _id: 'acc_1', balance: 1 });
    upstream.world.account = { _id: 'acc_1', balance: 2 };
    expect(await data.account('acc_1')).toEqual({ _id: 'acc_1', balance: 1 });

    own.pause();
    try {
      upstream.world.account = { _id: 'acc_1', balance: 3 };
      // The platform's answer, after one command timeout; then without asking Redis at all.
      expect(await data.account('acc_1')).toEqual({ _id: 'acc_1', balance: 3 });
      expect(failures).toHaveLength(1);
      upstream.world.account = { _id: 'acc_1', balance: 4 };
      expect(await data.account('acc_1')).toEqual({ _id: 'acc_1', balance: 4 });
      expect(failures).toHaveLength(1);
    } finally {
      own.resume();
    }
    now += 5_000;
    expect(await data.account('acc_1')).toEqual({ _id: 'acc_1', balance: 1 });
    expect(results).toEqual(['miss', 'hit', 'bypass', 'bypass', 'hit']);
  });
});
