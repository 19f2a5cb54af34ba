import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import type { ReconciledTransactions } from '../../src/user-data/kept-ledger.js';
import { createKeptReads } from '../../src/user-data/kept-reads.js';
import { VersionsMixedError } from '../../src/user-data/kept-sync.js';
import type { UserDataStore } from '../../src/user-data/user-data-store.js';
import { KEPT_STORES, keptPlatform, keptRow, keptScene, keptUser } from '../support/kept-platform.js';

describe.each(KEPT_STORES)('kept transaction sync (%s)', (_name, open) => {
  it('publishes the changes a first sync finds at the platform (rows the ledger covered, listed otherwise now), as a reconciliation does', async () => {
    const store = await open();
    const found: Array<Parameters<ReconciledTransactions>> = [];
    const kept = createKeptReads({
      store,
      clock: Date.now,
      maxAgeMs: 60_000,
      onTransactionsReconciled: async (...args) => void found.push(args),
    });
    const u = keptUser();
    const upstream = keptPlatform();
    upstream.world.rows = [keptRow('trans_2', 3), keptRow('trans_1', 1)];
    const data = kept.forUser(u, () => upstream.reads);
    // One device syncs the last days only: the ledger covers trans_2.
    await data.sync(undefined, 100, Date.parse('2026-11-02T00:00:00.000Z'));
    // The bank changes trans_2, and its webhook is lost; another device syncs all history.
    upstream.world.rows[0] = { ...keptRow('trans_2', 3), amount: 4 };
    const all = await data.sync(undefined, 100, undefined);
    expect(all.added).toEqual([{ ...keptRow('trans_2', 3), amount: 4 }, keptRow('trans_1', 1)]);
    expect(found).toHaveLength(1);
    const [, changes, rows, sync] = found[0]!;
    expect(changes.map((change) => [change.kind, change.id])).toEqual([['modified', 'trans_2']]);
    expect(rows.get('trans_2')).toEqual({ ...keptRow('trans_2', 3), amount: 4 });
    expect(sync).toMatchObject({ from: 0, to: 1 });
  });
});

/** `count` settled rows of acc_1, newest first, a minute apart, each with a little content of its own. */
const history = (count: number) =>
  Array.from({ length: count }, (_, index) => ({
    ...keptRow(`trans_${String(index).padStart(4, '0')}`, 1),
    date: new Date(Date.parse('2026-11-20T00:00:00.000Z') - index * 60_000).toISOString(),
    ref: randomBytes(6).toString('hex'),
  }));

describe.each(KEPT_STORES)('a first sync of more history than the user may keep (%s)', (_name, open) => {
  it('reads the history once and syncs what is kept, saying from when; the next sync continues', async () => {
    const store = await open({ userMaxBytes: 16 * 1024 });
    const { u, upstream, data, changes } = keptScene(store, { pageSize: 100 });
    upstream.world.rows = history(1_000);
    const added: string[] = [];
    let answer = await data.sync(undefined, 500, undefined);
    added.push(...answer.added.map((row) => row._id));
    while (answer.hasMore) {
      answer = await data.sync(answer.nextCursor, 500, undefined);
      added.push(...answer.added.map((row) => row._id));
    }
    // Ten pages of history, read once.
    expect(upstream.calls.filter((call) => call === 'transactions')).toHaveLength(10);
    // The window starts later than asked (all history), and holds every row after its start, once.
    expect(answer.start).toEqual(expect.any(Number));
    const inWindow = upstream.world.rows.filter((row) => Date.parse(row.date) > answer.start!).map((row) => row._id);
    expect(inWindow.length).toBeGreaterThan(100);
    expect(inWindow.length).toBeLessThan(1_000);
    expect(added).toEqual(inWindow);
    // A new row syncs from the cursor, with no platform read of the history.
    upstream.world.rows.unshift({ ...keptRow('trans_new', 21), ref: 'new' });
    const named = { item_id: 'acc_1', new_transaction_ids: ['trans_new'] };
    await changes.apply(u, 'TRANSACTION', 'DEFAULT_UPDATE', named, upstream.reads);
    const next = await data.sync(answer.nextCursor, 500, undefined);
    expect(next.added.map((row) => row._id)).toEqual(['trans_new']);
    expect(upstream.calls.filter((call) => call === 'transactions')).toHaveLength(10);
  });
});

describe.each(KEPT_STORES)('sync while an earlier version shares the store (%s)', (_name, open) => {
  it('is refused for now, with no platform call, rather than reconciling the whole window on every call', async () => {
    const shared = await open();
    let mixed = false;
    const store = { ...shared, trust: async () => ({ mixed, since: 0 }) };
    const { upstream, data } = keptScene(store);
    const first = await data.sync(undefined, 100, undefined);
    const calls = upstream.calls.length;
    mixed = true;
    await expect(data.sync(first.nextCursor, 100, undefined)).rejects.toThrow(VersionsMixedError);
    await expect(data.sync(undefined, 100, undefined)).rejects.toThrow(VersionsMixedError);
    expect(upstream.calls.length).toBe(calls);
  });
});

describe.each(KEPT_STORES)('a sync of many changes at once (%s)', (_name, open) => {
  it('answers at most `count` rows, the rest with hasMore, each change once, though one webhook named 300 rows', async () => {
    const store = await open();
    const { u, upstream, data, changes } = keptScene(store);
    const first = await data.sync(undefined, 100, undefined);
    const arrived = history(300).map((row) => ({
      ...row,
      date: new Date(Date.parse(row.date) + 86_400_000).toISOString(),
    }));
    upstream.world.rows = [...arrived, ...upstream.world.rows];
    const named = { item_id: 'acc_1', new_transaction_ids: arrived.map((row) => row._id) };
    await changes.apply(u, 'TRANSACTION', 'DEFAULT_UPDATE', named, upstream.reads);
    upstream.world.rows[0] = { ...upstream.world.rows[0]!, ref: 'changed' };
    await changes.apply(
      u,
      'TRANSACTION',
      'DEFAULT_UPDATE',
      { item_id: 'acc_1', new_transaction_ids: [arrived[0]!._id] },
      upstream.reads,
    );

    const added: string[] = [];
    const modified: string[] = [];
    let answer = first;
    do {
      answer = await data.sync(answer.nextCursor, 100, undefined);
      expect(answer.added.length + answer.modified.length + answer.removed.length).toBeLessThanOrEqual(100);
      added.push(...answer.added.map((row) => row._id));
      modified.push(...answer.modified.map((row) => row._id));
    } while (answer.hasMore);
    expect([...added].sort()).toEqual(arrived.map((row) => row._id).sort());
    expect(modified).toEqual([arrived[0]!._id]); // its second change, in an answer after its first
    // The row changed again after it arrived comes as it is now.
    const again = await data.sync(first.nextCursor, 500, undefined);
    expect(again.added.find((row) => row._id === arrived[0]!._id)).toMatchObject({ ref: 'changed' });
  });
});

describe.each(KEPT_STORES)('a sync push or a by-id read of a large ledger (%s)', (_name, open) => {
  it('reads the blocks that hold the rows, not every block', async () => {
    const shared = await open();
    let blocksRead = 0;
    const store: UserDataStore = {
      ...shared,
      read: async (userId, fields, topics, ledgerHead) => {
        const snap = await shared.read(userId, fields, topics, ledgerHead);
        blocksRead += [...snap.values.keys()].filter((field) => /^ta\|L\d+$/.test(field)).length;
        return snap;
      },
    };
    const { u, upstream, data, changes } = keptScene(store, { pageSize: 100 });
    upstream.world.rows = history(1_000);
    let answer = await data.sync(undefined, 500, undefined);
    while (answer.hasMore) answer = await data.sync(answer.nextCursor, 500, undefined);
    const arrived = { ...keptRow('trans_new', 21), ref: 'new' };
    upstream.world.rows.unshift(arrived);
    const named = { item_id: 'acc_1', new_transaction_ids: ['trans_new'] };
    await changes.apply(u, 'TRANSACTION', 'DEFAULT_UPDATE', named, upstream.reads);

    blocksRead = 0;
    expect((await data.sync(answer.nextCursor, 100, undefined)).added).toEqual([arrived]);
    expect(blocksRead).toBeLessThanOrEqual(1); // of 5
    blocksRead = 0;
    const calls = upstream.calls.length;
    expect(await data.transactionsByIds(['trans_new'])).toEqual([arrived]);
    expect(upstream.calls.length).toBe(calls);
    expect(blocksRead).toBeLessThanOrEqual(2);
  });
});
