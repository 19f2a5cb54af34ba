import { describe, expect, it } from 'vitest';
import { KEPT_STORES, keptRow, keptScene } from '../support/kept-platform.js';

describe.each(KEPT_STORES)('two webhooks racing over one object (%s)', (_name, open) => {
  it('an ACCOUNT UPDATE whose read stalled never overwrites a later one already applied: the newer balance stays', async () => {
    const { u, upstream, data, changes } = keptScene(await open());
    await data.account('acc_1'); // kept (balance 1)

    upstream.world.account = { _id: 'acc_1', balance: 5 };
    const held = upstream.hold('account');
    const first = changes.apply(
      u,
      'ACCOUNT',
      'UPDATE',
      { item_id: 'acc_1', updated_fields: ['balance'] },
      upstream.reads,
    );
    await held.started; // W1 has read balance 5, and stalls
    upstream.world.account = { _id: 'acc_1', balance: 9 };
    const payload = { item_id: 'acc_1', updated_fields: ['balance', 'available'] };
    await changes.apply(u, 'ACCOUNT', 'UPDATE', payload, upstream.reads); // W2 reads 9: applied, acknowledged
    held.letGo();
    await first;

    const calls = upstream.calls.length;
    expect(await data.account('acc_1')).toEqual({ _id: 'acc_1', balance: 9 });
    expect(upstream.calls.length).toBe(calls); // served as kept
  });

  it('a DEFAULT_UPDATE whose by-id read stalled never overwrites a later one naming the same row', async () => {
    const { u, upstream, data, changes } = keptScene(await open());
    upstream.world.rows = [{ ...keptRow('trans_1', 1), amount: 1 }];
    await data.transactions({ first: 10 }); // the ledger covers trans_1

    upstream.world.rows = [{ ...keptRow('trans_1', 1), amount: 5 }];
    const named = { item_id: 'acc_1', new_transaction_ids: ['trans_1'] };
    const held = upstream.hold('ids');
    const first = changes.apply(u, 'TRANSACTION', 'DEFAULT_UPDATE', named, upstream.reads);
    await held.started; // W1 has read amount 5, and stalls
    upstream.world.rows = [{ ...keptRow('trans_1', 1), amount: 9 }];
    await changes.apply(u, 'TRANSACTION', 'DEFAULT_UPDATE', named, upstream.reads);
    held.letGo();
    await first;

    const calls = upstream.calls.length;
    const page = await data.transactions({ first: 10 });
    expect(page!.rows).toEqual([{ ...keptRow('trans_1', 1), amount: 9 }]);
    expect(upstream.calls.length).toBe(calls);
  });
});

describe.each(KEPT_STORES)('a webhook whose platform read fails (%s)', (_name, open) => {
  it('a DEFAULT_UPDATE for one account keeps the ledger and its change log: an earlier sync cursor still answers, and the next reads show the rows named', async () => {
    const { u, upstream, data, changes } = keptScene(await open());
    upstream.world.rows = [keptRow('trans_1', 3), keptRow('trans_a', 2, 'acc_2')];
    const first = await data.sync(undefined, 100, undefined);
    expect(first.added.map((row) => row._id)).toEqual(['trans_1', 'trans_a']);

    upstream.world.rows = [keptRow('trans_2', 4), ...upstream.world.rows];
    upstream.fail('ids');
    const named = { item_id: 'acc_1', new_transaction_ids: ['trans_2'] };
    const outcome = await changes.apply(u, 'TRANSACTION', 'DEFAULT_UPDATE', named, upstream.reads);
    expect(outcome.marks?.[0]?.digest).toMatch(/^unknown:/);
    upstream.fail(undefined);

    // The next sync from the earlier cursor answers (it reconciles first): the row named, added.
    const next = await data.sync(first.nextCursor, 100, undefined);
    expect(next.added.map((row) => row._id)).toEqual(['trans_2']);
    expect(next.removed).toEqual([]);
    const page = await data.transactions({ first: 10 });
    expect(page!.rows.map((row) => row._id)).toEqual(['trans_2', 'trans_1', 'trans_a']);
    // A by-id read of the ledger made stale goes to the platform, never to the rows kept before.
    upstream.world.rows[1] = { ...keptRow('trans_1', 3), amount: 7 };
    upstream.fail('ids');
    await changes.apply(
      u,
      'TRANSACTION',
      'DEFAULT_UPDATE',
      { item_id: 'acc_1', new_transaction_ids: ['trans_1'] },
      upstream.reads,
    );
    upstream.fail(undefined);
    expect(await data.transactionsByIds(['trans_1'])).toEqual([{ ...keptRow('trans_1', 3), amount: 7 }]);
  });
});
