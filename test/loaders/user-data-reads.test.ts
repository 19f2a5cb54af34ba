import { describe, expect, it } from 'vitest';
import type { Browser } from '../support/browser.js';
import { signIn, startGateway, type TestGateway } from '../support/gateway.js';
import { USER_DATA_STORES } from '../support/redis.js';

/** What an app's home screen asks: the user, their accounts, one account and a page of enriched transactions. */
const HOME = `query Home($id: ID!, $first: Int, $after: String) {
  me { id email }
  accounts { id name status balance { current available } }
  account(id: $id) { id name balance { current } }
  transactions(first: $first, after: $after) {
    nodes { id date description amount enrichment { merchant { name } category { name } } }
    pageInfo { hasNextPage endCursor }
  }
}`;

const ONE_ACCOUNT = `query Page($accountId: ID, $start: DateTimeISO, $first: Int, $after: String) {
  transactions(accountId: $accountId, start: $start, first: $first, after: $after) {
    nodes { id amount }
    pageInfo { hasNextPage endCursor }
  }
}`;

async function query(gateway: TestGateway, browser: Browser, text: string, variables: Record<string, unknown>) {
  const response = await browser.request(`${gateway.url}/graphql`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ query: text, variables }),
  });
  expect(response.status, response.text).toBe(200);
  const body = JSON.parse(response.text) as { data: Record<string, unknown>; errors?: unknown };
  expect(body.errors).toBeUndefined();
  return body.data;
}

/** The core API's reads of the kept kinds (me, accounts, settled transactions) so far. */
const keptKindReads = (gateway: TestGateway) =>
  gateway.sandbox
    .requests({ service: 'core', method: 'GET' })
    .filter((request) => /^\/v1\/(me|accounts|transactions)/.test(request.path) && !request.path.endsWith('/pending'));

const firstAccount = (gateway: TestGateway) => {
  const aroha = gateway.sandbox.world().users[0]!;
  return gateway.sandbox.world().accounts.find((a) => a.sandboxUserId === aroha._id && a.sandboxShared)!._id;
};

describe.each(USER_DATA_STORES)('reads through the user-data store (%s)', (_name, env) => {
  it('answers a repeated read with no platform call, and exactly what the platform said', async () => {
    const gateway = await startGateway(env());
    const browser = await signIn(gateway);
    const variables = { id: firstAccount(gateway), first: 100 };
    const before = keptKindReads(gateway).length;
    const cold = await query(gateway, browser, HOME, variables);
    const coldCalls = keptKindReads(gateway).length - before;
    expect(coldCalls).toBeGreaterThanOrEqual(4); // me, the list, the account, a page (or more)
    expect((cold.transactions as { nodes: unknown[] }).nodes).toHaveLength(100);

    const warm = await query(gateway, browser, HOME, variables);
    expect(keptKindReads(gateway).length - before).toBe(coldCalls);
    expect(warm).toEqual(cold);
    // The next page is its own entry: read once, then kept too.
    const after = (cold.transactions as { pageInfo: { endCursor: string } }).pageInfo.endCursor;
    const next = await query(gateway, browser, HOME, { ...variables, after });
    const withNext = keptKindReads(gateway).length;
    expect(await query(gateway, browser, HOME, { ...variables, after })).toEqual(next);
    expect(keptKindReads(gateway).length).toBe(withNext);
  });

  it('keeps each query apart: another account, start date or page is read from the platform once', async () => {
    const gateway = await startGateway(env());
    const browser = await signIn(gateway);
    const accountId = firstAccount(gateway);
    const start = new Date(Date.now() - 30 * 86_400_000).toISOString();
    const queries = [
      { accountId, first: 5 },
      { accountId, start, first: 5 },
      { start, first: 5 },
    ];
    const answers = [];
    for (const variables of queries) answers.push(await query(gateway, browser, ONE_ACCOUNT, variables));
    const calls = keptKindReads(gateway).length;
    expect(calls).toBeGreaterThanOrEqual(queries.length);
    for (const [index, variables] of queries.entries())
      expect(await query(gateway, browser, ONE_ACCOUNT, variables)).toEqual(answers[index]);
    expect(keptKindReads(gateway).length).toBe(calls);
  });

  it('never keeps one user\u2019s answers for another', async () => {
    const gateway = await startGateway(env());
    const aroha = await signIn(gateway, 0);
    const james = await signIn(gateway, 1);
    const mine = await query(gateway, aroha, 'query { me { id } accounts { id } }', {});
    const theirs = await query(gateway, james, 'query { me { id } accounts { id } }', {});
    expect((theirs.me as { id: string }).id).not.toBe((mine.me as { id: string }).id);
    expect(theirs.accounts).not.toEqual(mine.accounts);
  });
});
