import { describe, expect, it } from 'vitest';
import type { Browser } from '../../support/browser.js';
import { startGateway, type TestGateway } from '../../support/gateway.js';
import { USER_DATA_STORES } from '../../support/redis.js';
import { socketClient, subscribe } from '../../support/sockets.js';
import { sync, SYNC_EVENTS, syncAll, syncPlatform, type Delta } from '../../support/transaction-sync.js';
import { signedInUser } from '../../support/webhooks.js';

async function revokeAccount(gateway: TestGateway, browser: Browser, accountId: string): Promise<void> {
  const response = await browser.request(`${gateway.url}/graphql`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ query: `mutation { revokeAccount(id: "${accountId}") { accountId } }` }),
  });
  expect(JSON.parse(response.text)).toEqual({ data: { revokeAccount: { accountId } } });
}

const ids = (rows: ReadonlyArray<{ id: string }>) => rows.map((row) => row.id).sort();

type Live = Awaited<ReturnType<typeof subscribe<{ transactionsSync: Delta }>>>;

/** The next pushes of a sync subscription, while `hasMore`, as one delta (with the last cursor). */
async function pushed(live: Live): Promise<Delta> {
  const all: Delta = { added: [], modified: [], removed: [], nextCursor: '', hasMore: true };
  while (all.hasMore) {
    const delta = (await live.next()).data!.transactionsSync;
    expect(delta.added.length + delta.modified.length + delta.removed.length).toBeLessThanOrEqual(100);
    all.added.push(...delta.added);
    all.modified.push(...delta.modified);
    all.removed.push(...delta.removed);
    ({ nextCursor: all.nextCursor, hasMore: all.hasMore } = delta);
  }
  return all;
}

describe.each(USER_DATA_STORES)('a transaction sync subscription (%s)', (_name, env) => {
  it('pushes every change the change log holds, those no event announced (revokeAccount) and an ACCOUNT DELETE included, and its cursors continue with no gap', async () => {
    const gateway = await startGateway(env());
    const { browser, userId, state } = await signedInUser(gateway);
    const at = syncPlatform(gateway, userId, state);
    const { cursor } = await syncAll(gateway, browser, undefined, 500);
    const { client } = socketClient(gateway, browser);
    const live = await subscribe<{ transactionsSync: Delta }>(gateway, client, SYNC_EVENTS, 'TRANSACTION_SYNC', {
      cursor,
    });
    expect((await live.next()).data!.transactionsSync).toMatchObject({ added: [], removed: [], hasMore: false });
    const rowsOf = (accountId: string) =>
      at
        .rows()
        .filter((row) => row._account === accountId)
        .map((row) => ({ id: row._id }));

    // The user stops sharing an account: its rows leave the ledger, and no webhook announces it.
    const revoked = rowsOf(at.accounts[0]!._id);
    await revokeAccount(gateway, browser, at.accounts[0]!._id);
    const arrived = await at.add(1);
    const first = await pushed(live);
    expect(ids(first.added)).toEqual([arrived._id]);
    expect(ids(first.removed)).toEqual(ids(revoked));

    // The platform deletes an account: its rows are pushed as removed.
    const deleted = rowsOf(at.accounts[2]!._id);
    await at.accountGone(2);
    const second = await pushed(live);
    expect(second).toMatchObject({ added: [], modified: [] });
    expect(ids(second.removed)).toEqual(ids(deleted));

    // What it pushed is what the query answers from the same cursor, and nothing is left after its last one.
    const whole = await syncAll(gateway, browser, cursor);
    expect(ids(whole.added)).toEqual([arrived._id]);
    expect(ids(whole.removed)).toEqual(ids([...revoked, ...deleted]));
    const after = await sync(gateway, browser, second.nextCursor);
    expect(after.data!.transactionsSync).toMatchObject({ added: [], modified: [], removed: [], hasMore: false });
  }, 60_000);
});
