import { describe, expect, it } from 'vitest';
import { parseRedisUrls } from '../../src/config/redis-settings.js';
import { createKeptReads, type LookupResult } from '../../src/user-data/kept-reads.js';
import type { UserDataStore } from '../../src/user-data/user-data-store.js';
import { WebhookChanges } from '../../src/user-data/webhook-changes.js';
import { KEPT_STORES, keptPlatform, keptRow, keptUser, redisUserDataStore } from '../support/kept-platform.js';
import { startStallableRedis } from '../support/stallable-redis.js';

const row = keptRow;
const platform = keptPlatform;
const user = keptUser;

describe.each(KEPT_STORES)('a read racing a webhook (%s)', (_name, open) => {
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
    const store = await redisUserDataStore({ connection, commandTimeoutMs: 200 });
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
