import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import type { Browser } from '../support/browser.js';
import { startGateway, type TestGateway } from '../support/gateway.js';
import { USER_DATA_STORES } from '../support/redis.js';
import { deliver, signedHeaders, signedInUser } from '../support/webhooks.js';

const PAGES = `query Pages($accountId: ID, $after: String) {
  all: transactions(first: 100) { nodes { id date amount } }
  one: transactions(accountId: $accountId, first: 20, after: $after) { nodes { id date amount } }
}`;

type Row = { id: string; date: string; amount: number };
type Pages = { all: { nodes: Row[] }; one: { nodes: Row[] } };

async function pages(gateway: TestGateway, browser: Browser, accountId: string): Promise<Pages> {
  const response = await browser.request(`${gateway.url}/graphql`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ query: PAGES, variables: { accountId } }),
  });
  const body = JSON.parse(response.text) as { data: Pages; errors?: unknown };
  expect(body.errors).toBeUndefined();
  return body.data;
}

/** Every call the gateway made to the core API for the user so far (reads and the by-id POST; not the signing key). */
const coreCalls = (gateway: TestGateway) =>
  gateway.sandbox
    .requests({ service: 'core' })
    .filter((request) => /^\/v1\/(me|accounts|transactions)/.test(request.path));

/** Rows sorted as the platform lists them: newest first, then by id. */
const inOrder = (rows: Row[]) =>
  [...rows].sort((a, b) => (a.date === b.date ? (a.id < b.id ? -1 : 1) : a.date < b.date ? 1 : -1));

describe.each(USER_DATA_STORES)('the ledger kept by id (%s)', (_name, env) => {
  it('a DEFAULT_UPDATE naming 3 new ids costs one platform call (by id) and shows the rows in place on every page; a DELETE costs none', async () => {
    const gateway = await startGateway(env());
    const { browser, userId, state } = await signedInUser(gateway);
    const world = gateway.sandbox.world();
    const account = world.accounts.find((row) => row.sandboxUserId === userId && row.sandboxShared)!;
    const before = await pages(gateway, browser, account._id);
    // Three rows settle between rows already shown (a bank posts late), not only at the top.
    const shown = before.one.nodes;
    const template = world.transactions.find((row) => row._id === shown[0]!.id)!;
    const newRows = [0, 4, 9].map((index) => ({
      ...template,
      _id: `trans_${randomBytes(8).toString('hex')}`,
      date: new Date(Date.parse(shown[index]!.date) - 1_000).toISOString(),
      amount: -(index + 1),
    }));
    world.transactions.push(...newRows);
    world.transactions.sort((a, b) => (a.date === b.date ? (a._id < b._id ? -1 : 1) : a.date < b.date ? 1 : -1));

    const calls = coreCalls(gateway).length;
    const body = JSON.stringify({
      webhook_type: 'TRANSACTION',
      webhook_code: 'DEFAULT_UPDATE',
      state,
      item_id: account._id,
      new_transactions: 3,
      new_transaction_ids: newRows.map((row) => row._id),
    });
    expect((await deliver(gateway, body, signedHeaders(gateway, body))).status).toBe(200);
    const after = await pages(gateway, browser, account._id);
    const next = await pages(gateway, browser, account._id);
    expect(next).toEqual(after);
    expect(
      coreCalls(gateway)
        .slice(calls)
        .map((call) => `${call.method} ${call.path}`),
    ).toEqual(['POST /v1/transactions/ids']);
    // In place: each page is what it was with the three rows inserted in order.
    const added = newRows.map((row) => ({ id: row._id, date: row.date, amount: row.amount }));
    expect(after.one.nodes).toEqual(inOrder([...before.one.nodes, ...added]).slice(0, 20));
    expect(after.all.nodes).toEqual(inOrder([...before.all.nodes, ...added]).slice(0, 100));

    // The bank withdraws one: removed from every page, with no platform call.
    const removed = newRows[1]!;
    world.transactions.splice(world.transactions.indexOf(removed), 1);
    const deletion = JSON.stringify({
      webhook_type: 'TRANSACTION',
      webhook_code: 'DELETE',
      state,
      item_id: account._id,
      removed_transactions: [removed._id],
    });
    const beforeDelete = coreCalls(gateway).length;
    expect((await deliver(gateway, deletion, signedHeaders(gateway, deletion))).status).toBe(200);
    const afterDelete = await pages(gateway, browser, account._id);
    expect(coreCalls(gateway).length).toBe(beforeDelete);
    expect(afterDelete.one.nodes.map((row) => row.id)).not.toContain(removed._id);
    expect(afterDelete.all.nodes.map((row) => row.id)).not.toContain(removed._id);
    expect(afterDelete.one.nodes).toEqual(
      after.one.nodes.filter((row) => row.id !== removed._id).concat(afterDelete.one.nodes.slice(19)),
    );
  });
});
