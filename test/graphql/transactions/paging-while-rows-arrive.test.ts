import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import type { Browser } from '../../support/browser.js';
import { startGateway, type TestGateway } from '../../support/gateway.js';
import { USER_DATA_STORES } from '../../support/redis.js';
import { deliver, signedHeaders, signedInUser } from '../../support/webhooks.js';

const PAGE = `query Page($first: Int, $after: String) {
  transactions(first: $first, after: $after) { nodes { id } pageInfo { hasNextPage endCursor } }
}`;

type Page = { transactions: { nodes: Array<{ id: string }>; pageInfo: { hasNextPage: boolean; endCursor: string } } };

const STORES = [...USER_DATA_STORES, ['off', () => ({ USER_DATA_STORE: 'off' })]] as const;

async function page(gateway: TestGateway, browser: Browser, after: string | undefined): Promise<Page['transactions']> {
  const response = await browser.request(`${gateway.url}/graphql`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ query: PAGE, variables: { first: 50, after } }),
  });
  const body = JSON.parse(response.text) as { data: Page; errors?: unknown };
  expect(body.errors).toBeUndefined();
  return body.data.transactions;
}

describe.each(STORES)('paging while transactions arrive (store: %s)', (_name, env) => {
  it('shows each settled row once, none skipped, while 20 new ones land between its pages', async () => {
    const gateway = await startGateway(env());
    const { browser, userId, state } = await signedInUser(gateway);
    const world = gateway.sandbox.world();
    const accounts = world.accounts.filter((row) => row.sandboxUserId === userId && row.sandboxShared);
    const before = world.transactions
      .filter((row) => accounts.some((account) => account._id === row._account))
      .map((row) => row._id);
    expect(before.length).toBeGreaterThanOrEqual(300);

    const seen: string[] = [];
    let after: string | undefined;
    let added = 0;
    for (;;) {
      const current = await page(gateway, browser, after);
      seen.push(...current.nodes.map((row) => row.id));
      if (!current.pageInfo.hasNextPage) break;
      after = current.pageInfo.endCursor;
      // Between two pages, four new transactions settle on the platform, each announced.
      for (let n = 0; n < 4 && added < 20; n += 1, added += 1) {
        const account = accounts[added % accounts.length]!;
        const template = world.transactions.find((row) => row._account === account._id)!;
        const row = { ...template, _id: `trans_${randomBytes(8).toString('hex')}`, date: new Date().toISOString() };
        world.transactions.unshift(row);
        const body = JSON.stringify({
          webhook_type: 'TRANSACTION',
          webhook_code: 'DEFAULT_UPDATE',
          state,
          item_id: account._id,
          new_transactions: 1,
          new_transaction_ids: [row._id],
        });
        expect((await deliver(gateway, body, signedHeaders(gateway, body))).status).toBe(200);
      }
    }
    expect(added).toBe(20);
    expect(seen.length).toBe(new Set(seen).size); // no row twice
    expect([...seen].sort()).toEqual([...before].sort()); // every row that was there, none skipped
  }, 60_000);
});
