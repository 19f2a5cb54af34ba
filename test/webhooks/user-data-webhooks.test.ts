import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { deployment, postWebhook, readKept, routingState, signInVia, type Deployment } from '../support/deployment.js';
import type { Instance } from '../support/instances.js';

/** GET calls to the core API for the kept kinds so far. */
const platformReads = (deployed: Deployment) =>
  deployed.sandbox
    .requests({ service: 'core', method: 'GET' })
    .filter((request) => /^\/v1\/(me|accounts|transactions)/.test(request.path) && !request.path.endsWith('/pending'))
    .length;

const webhook = (state: string, type: string, code: string, fields: Record<string, unknown>) =>
  JSON.stringify({ webhook_type: type, webhook_code: code, state, ...fields, nonce: randomBytes(4).toString('hex') });

describe('webhooks keep the user-data store current across instances (Redis)', () => {
  it('after a signed ACCOUNT UPDATE, TRANSACTION DEFAULT_UPDATE or DELETE is answered 200 on A, the very next read on B shows the change', async () => {
    const deployed = await deployment(2);
    const [a, b] = deployed.instances as [Instance, Instance];
    const userId = await signInVia(deployed, a, a);
    const state = routingState(deployed.sandbox, userId);
    const world = deployed.sandbox.world();
    const account = world.accounts.find((row) => row.sandboxUserId === userId && row.sandboxShared)!;

    // Read on A; B answers the same from the shared store, with no platform call.
    const first = await readKept(deployed, a, account._id);
    const calls = platformReads(deployed);
    expect(await readKept(deployed, b, account._id)).toEqual(first);
    expect(platformReads(deployed)).toBe(calls);

    // The platform's balance changes; until its webhook arrives, the kept answer stands.
    const balance = account.balance.current + 100;
    account.balance.current = balance;
    expect((await readKept(deployed, b, account._id)).account.balance.current).not.toBe(balance);
    const update = webhook(state, 'ACCOUNT', 'UPDATE', { item_id: account._id, updated_fields: ['balance'] });
    expect((await postWebhook(deployed.sandbox, a, update)).status).toBe(200);
    const afterUpdate = await readKept(deployed, b, account._id);
    expect(afterUpdate.account.balance.current).toBe(balance);
    expect(afterUpdate.accounts.find((row) => row.id === account._id)!.balance.current).toBe(balance);

    // A new transaction: on B's next read, in the account's pages and the all-accounts pages.
    const template = world.transactions.find((row) => row._account === account._id)!;
    const added = { ...template, _id: `trans_${randomBytes(8).toString('hex')}`, date: new Date().toISOString() };
    added.amount = -42.42;
    world.transactions.unshift(added);
    expect((await readKept(deployed, b, account._id)).transactions.nodes.map((row) => row.id)).not.toContain(added._id);
    const newRows = webhook(state, 'TRANSACTION', 'DEFAULT_UPDATE', {
      item_id: account._id,
      new_transactions: 1,
      new_transaction_ids: [added._id],
    });
    expect((await postWebhook(deployed.sandbox, a, newRows)).status).toBe(200);
    const afterNew = await readKept(deployed, b, account._id);
    expect(afterNew.transactions.nodes[0]).toEqual({ id: added._id, amount: -42.42 });
    expect(afterNew.all.nodes.map((row) => row.id)).toContain(added._id);

    // The bank withdraws it again.
    world.transactions.splice(world.transactions.indexOf(added), 1);
    const removed = webhook(state, 'TRANSACTION', 'DELETE', {
      item_id: account._id,
      removed_transactions: [added._id],
    });
    expect((await postWebhook(deployed.sandbox, a, removed)).status).toBe(200);
    const afterDelete = await readKept(deployed, b, account._id);
    expect(afterDelete.transactions.nodes.map((row) => row.id)).not.toContain(added._id);
    expect(afterDelete.all.nodes.map((row) => row.id)).not.toContain(added._id);

    // And every change was kept again at once: the next read on A makes no platform call.
    const settled = platformReads(deployed);
    expect(await readKept(deployed, a, account._id)).toEqual(afterDelete);
    expect(platformReads(deployed)).toBe(settled);
  }, 60_000);
});
