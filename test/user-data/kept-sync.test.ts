import { describe, expect, it } from 'vitest';
import type { ReconciledTransactions } from '../../src/user-data/kept-ledger.js';
import { createKeptReads } from '../../src/user-data/kept-reads.js';
import { KEPT_STORES, keptPlatform, keptRow, keptUser } from '../support/kept-platform.js';

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
    upstream.world.rows[0] = { ...keptRow('trans_2', 3), amount: 4 } as never;
    const all = await data.sync(undefined, 100, undefined);
    expect(all.added).toEqual([{ ...keptRow('trans_2', 3), amount: 4 }, keptRow('trans_1', 1)]);
    expect(found).toHaveLength(1);
    const [, changes, rows, sync] = found[0]!;
    expect(changes.map((change) => [change.kind, change.id])).toEqual([['modified', 'trans_2']]);
    expect(rows.get('trans_2')).toEqual({ ...keptRow('trans_2', 3), amount: 4 });
    expect(sync).toMatchObject({ from: 0, to: 1 });
  });
});
