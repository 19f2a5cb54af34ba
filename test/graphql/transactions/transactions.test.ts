import { describe, expect, it } from 'vitest';
import {
  PendingTransactionsDocument,
  TransactionsDocument,
  TransactionsWithEnrichmentDocument,
} from '../../__generated__/graphql.js';
import type { Browser } from '../../support/browser.js';
import { execute, signIn, startGateway, type TestGateway } from '../../support/gateway.js';

type Variables = { accountId?: string; start?: string; end?: string; first?: number };

async function pageThrough(gateway: TestGateway, browser: Browser, variables: Variables) {
  const ids: string[] = [];
  const dates: string[] = [];
  let after: string | undefined;
  for (let page = 0; page < 50; page += 1) {
    const response = await execute(gateway, browser, TransactionsDocument, { ...variables, after });
    expect(response.errors).toBeUndefined();
    const connection = response.data!.transactions;
    ids.push(...connection.edges.map((edge) => edge.node.id));
    dates.push(...connection.edges.map((edge) => edge.node.date));
    if (!connection.pageInfo.hasNextPage) return { ids, dates, pages: page + 1 };
    after = connection.pageInfo.endCursor!;
  }
  throw new Error('paging did not end');
}

function arohaRows(gateway: TestGateway) {
  const world = gateway.sandbox.world();
  const aroha = world.users[0]!;
  const visible = new Set(
    world.accounts.filter((a) => a.sandboxUserId === aroha._id && a.sandboxShared).map((a) => a._id),
  );
  return world.transactions.filter((t) => t._user === aroha._id && visible.has(t._account));
}

describe('transactions', () => {
  it('pages through all 300+ transactions with no duplicate and no gap', async () => {
    const gateway = await startGateway();
    const browser = await signIn(gateway);
    const expected = arohaRows(gateway);
    expect(expected.length).toBeGreaterThanOrEqual(300);
    const span = Date.parse(expected[0]!.date) - Date.parse(expected.at(-1)!.date);
    expect(span).toBeGreaterThan(80 * 86_400_000);

    const { ids, dates } = await pageThrough(gateway, browser, { first: 100 });
    expect(new Set(ids).size).toBe(ids.length);
    expect(ids).toEqual(expected.map((t) => t._id));
    expect([...dates].sort().reverse()).toEqual(dates);
  });

  it('gives the same rows with odd page sizes that straddle upstream pages', async () => {
    const gateway = await startGateway();
    const browser = await signIn(gateway);
    const { ids, pages } = await pageThrough(gateway, browser, { first: 37 });
    expect(ids).toEqual(arohaRows(gateway).map((t) => t._id));
    expect(pages).toBeGreaterThan(8);
  });

  it('honours start (exclusive) and end (inclusive)', async () => {
    const gateway = await startGateway();
    const browser = await signIn(gateway);
    const rows = arohaRows(gateway);
    const end = rows[20]!.date;
    const start = rows[160]!.date;
    const expected = rows.filter((t) => t.date > start && t.date <= end).map((t) => t._id);

    const { ids } = await pageThrough(gateway, browser, { start, end, first: 50 });
    expect(ids).toEqual(expected);
    expect(ids).toContain(rows[20]!._id);
    expect(ids).not.toContain(rows[160]!._id);
    const call = gateway.sandbox.requests({ path: '/v1/transactions' })[0]!;
    expect(call.path).toBe('/v1/transactions');
  });

  it('pages one account through its own endpoint', async () => {
    const gateway = await startGateway();
    const browser = await signIn(gateway);
    const everyday = gateway.sandbox.world().accounts.find((a) => a.name === 'Everyday')!;
    const { ids, pages } = await pageThrough(gateway, browser, { accountId: everyday._id, first: 30 });
    expect(pages).toBeGreaterThan(2);
    expect(ids).toEqual(
      arohaRows(gateway)
        .filter((t) => t._account === everyday._id)
        .map((t) => t._id),
    );
    expect(gateway.sandbox.requests({ path: `/v1/accounts/${everyday._id}/transactions` }).length).toBeGreaterThan(1);
  });

  it('follows an empty upstream page that still carries a next cursor', async () => {
    const gateway = await startGateway();
    const browser = await signIn(gateway);
    // Exactly 100 rows: the platform's first page is full, so it carries a cursor to an empty page.
    const rows = arohaRows(gateway);
    const end = rows[0]!.date;
    const start = rows[100]!.date;
    const first = await execute(gateway, browser, TransactionsDocument, { start, end, first: 100 });
    expect(first.data!.transactions.edges).toHaveLength(100);
    const second = await execute(gateway, browser, TransactionsDocument, {
      start,
      end,
      first: 100,
      after: first.data!.transactions.pageInfo.endCursor,
    });
    expect(second.errors).toBeUndefined();
    expect(second.data!.transactions.edges).toHaveLength(0);
    expect(second.data!.transactions.pageInfo.hasNextPage).toBe(false);

    // Asking for more than the full page walks through the empty one in the same request.
    const whole = await execute(gateway, browser, TransactionsDocument, { start, end: rows[0]!.date, first: 100 });
    expect(whole.data!.transactions.edges.map((e) => e.node.id)).toEqual(rows.slice(0, 100).map((t) => t._id));
  });

  it('refuses a cursor made for another query, and page sizes out of range', async () => {
    const gateway = await startGateway();
    const browser = await signIn(gateway);
    const page = await execute(gateway, browser, TransactionsDocument, { first: 10 });
    const cursor = page.data!.transactions.pageInfo.endCursor!;
    const account = gateway.sandbox.world().accounts[0]!._id;

    const foreign = await execute(gateway, browser, TransactionsDocument, {
      first: 10,
      after: cursor,
      accountId: account,
    });
    expect(foreign.errors![0]!.extensions).toMatchObject({ code: 'BAD_USER_INPUT', argumentName: 'after' });
    const tooMany = await execute(gateway, browser, TransactionsDocument, { first: 101 });
    expect(tooMany.errors![0]!.extensions).toMatchObject({ code: 'BAD_USER_INPUT', argumentName: 'first' });
  });

  it('enriches a page of 100 transactions in one upstream search', async () => {
    const gateway = await startGateway({ ENRICHMENT_CACHE_TTL_SECONDS: '0' });
    const browser = await signIn(gateway);
    const response = await execute(gateway, browser, TransactionsWithEnrichmentDocument, { first: 100 });

    expect(response.errors).toBeUndefined();
    const nodes = response.data!.transactions.nodes;
    expect(nodes).toHaveLength(100);
    const searches = gateway.sandbox.requests({ path: '/v1/search' });
    expect(searches).toHaveLength(1);
    const sent = searches[0]!.body as Array<{
      description: string;
      amount: number;
      direction: string;
      _connection: string;
    }>;
    expect(sent.length).toBe(new Set(nodes.map((n) => JSON.stringify([n.description, n.amount]))).size);
    expect(sent[0]).toMatchObject({
      direction: expect.stringMatching(/^(DEBIT|CREDIT)$/),
      _connection: expect.stringMatching(/^conn_/),
    });
    const enriched = nodes.filter((n) => n.enrichment?.merchant);
    expect(enriched.length).toBeGreaterThan(60);
    for (const node of nodes) expect(node.enrichment!.id).toBe(node.id);
  });

  it('lists pending transactions, which have no id', async () => {
    const gateway = await startGateway();
    const browser = await signIn(gateway);
    const all = await execute(gateway, browser, PendingTransactionsDocument, {});
    expect(all.data!.pendingTransactions.length).toBeGreaterThan(0);
    expect(all.data!.pendingTransactions[0]).not.toHaveProperty('id');
    const accountId = all.data!.pendingTransactions[0]!.accountId;
    const one = await execute(gateway, browser, PendingTransactionsDocument, { accountId });
    expect(one.data!.pendingTransactions.every((row) => row.accountId === accountId)).toBe(true);
    expect(gateway.sandbox.requests({ path: `/v1/accounts/${accountId}/transactions/pending` })).toHaveLength(1);
  });
});
