import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import type { Browser } from '../support/browser.js';
import { startGateway, type TestGateway } from '../support/gateway.js';
import { USER_DATA_STORES } from '../support/redis.js';
import { socketClient, subscribe } from '../support/sockets.js';
import { signedInUser } from '../support/webhooks.js';

const READ = `query Read($accountId: ID!) {
  account(id: $accountId) { balance { current } }
  transactions(first: 30) { nodes { id } }
}`;
const SYNC = `query Sync($cursor: String) {
  transactionsSync(cursor: $cursor, count: 500) { added { id } modified { id } removed { id } nextCursor hasMore }
}`;
const ACCOUNT_EVENTS =
  'subscription { accountEvents { code reconciled updatedFields account { balance { current } } } }';
const TRANSACTION_EVENTS =
  'subscription { transactionEvents { code reconciled newTransactionIds removedTransactionIds } }';

async function query<T>(gateway: TestGateway, browser: Browser, text: string, variables: Record<string, unknown>) {
  const response = await browser.request(`${gateway.url}/graphql`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ query: text, variables }),
  });
  const body = JSON.parse(response.text) as { data: T; errors?: unknown };
  expect(body.errors).toBeUndefined();
  return body.data;
}

describe.each(USER_DATA_STORES)('reconciliation at the maximum age (%s)', (_name, env) => {
  it('reads the window again, applies what changed with no webhook, and publishes it as the changes it found', async () => {
    let now = Date.now();
    const gateway = await startGateway({ ...env(), USER_DATA_MAX_AGE_SECONDS: '60' }, { clock: () => now });
    const { browser, userId } = await signedInUser(gateway);
    const world = gateway.sandbox.world();
    const account = world.accounts.find((row) => row.sandboxUserId === userId && row.sandboxShared)!;
    const before = await query<{ transactions: { nodes: Array<{ id: string }> } }>(gateway, browser, READ, {
      accountId: account._id,
    });
    const synced = await query<{ transactionsSync: { nextCursor: string } }>(gateway, browser, SYNC, {});
    const { client } = socketClient(gateway, browser);
    const accounts = await subscribe<{ accountEvents: { code: string; reconciled: boolean; account: unknown } }>(
      gateway,
      client,
      ACCOUNT_EVENTS,
      'ACCOUNT',
    );
    const transactions = await subscribe<{
      transactionEvents: {
        code: string;
        reconciled: boolean;
        newTransactionIds: string[];
        removedTransactionIds: string[];
      };
    }>(gateway, client, TRANSACTION_EVENTS, 'TRANSACTION');

    // The platform changes, and no webhook tells the gateway (the platform does not guarantee delivery).
    account.balance.current += 500;
    const template = world.transactions.find((row) => row._account === account._id)!;
    const added = { ...template, _id: `trans_${randomBytes(8).toString('hex')}`, date: new Date(now).toISOString() };
    world.transactions.unshift(added);
    const removed = world.transactions.find((row) => row._id === before.transactions.nodes[3]!.id)!;
    world.transactions.splice(world.transactions.indexOf(removed), 1);
    // Within the maximum age, what is kept is served.
    const kept = await query<{ account: { balance: { current: number } } }>(gateway, browser, READ, {
      accountId: account._id,
    });
    expect(kept.account.balance.current).toBe(account.balance.current - 500);

    now += 61_000;
    const after = await query<{
      account: { balance: { current: number } };
      transactions: { nodes: Array<{ id: string }> };
    }>(gateway, browser, READ, { accountId: account._id });
    expect(after.account.balance.current).toBe(account.balance.current);
    expect(after.transactions.nodes[0]!.id).toBe(added._id);
    expect(after.transactions.nodes.map((row) => row.id)).not.toContain(removed._id);

    // Published as the webhooks that never came, marked as found by reconciliation.
    expect((await accounts.next()).data!.accountEvents).toMatchObject({ code: 'UPDATE', reconciled: true });
    const found = [
      (await transactions.next()).data!.transactionEvents,
      (await transactions.next()).data!.transactionEvents,
    ];
    expect(found).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ code: 'DEFAULT_UPDATE', reconciled: true, newTransactionIds: [added._id] }),
        expect.objectContaining({ code: 'DELETE', reconciled: true, removedTransactionIds: [removed._id] }),
      ]),
    );
    // An app that synced before sees the same, as changes.
    const delta = await query<{ transactionsSync: { added: Array<{ id: string }>; removed: Array<{ id: string }> } }>(
      gateway,
      browser,
      SYNC,
      { cursor: synced.transactionsSync.nextCursor },
    );
    expect(delta.transactionsSync.added.map((row) => row.id)).toEqual([added._id]);
    expect(delta.transactionsSync.removed.map((row) => row.id)).toEqual([removed._id]);
  }, 60_000);
});
