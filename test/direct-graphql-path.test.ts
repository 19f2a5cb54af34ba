import { describe, expect, it } from 'vitest';
import { Browser } from './support/browser.js';
import { signIn, signInToApp, startGateway, type TestGateway } from './support/gateway.js';

/**
 * The direct path (GRAPHQL_DIRECT_PATH) must answer exactly as Apollo would: every case is sent
 * twice to one gateway, once as an ordinary request and once with an empty `extensions` object,
 * which Apollo ignores and the direct path leaves to Apollo. Bodies, status and content type must
 * be byte-identical, and the metrics must show which path served which.
 */

const ADMIN_TOKEN = 'direct-path-test-admin-token-0123456789';

const FULL = `query Full($q: [EnrichmentQueryInput!]!) {
  __typename
  enrich(queries: $q) {
    __typename id description confidence
    merchant { __typename id name logo website }
    merchant { name }
    category { id name groups { grouping id name } personalFinance { grouping name } }
    matches { confidence merchant { name } category { name } }
  }
}`;
const TWO_FIELDS = `query ($a: [EnrichmentQueryInput!]!, $b: [EnrichmentQueryInput!]!) {
  first: enrich(queries: $a) { id merchant { name } }
  second: enrich(queries: $b) { id description category { name } }
}`;

const PAGE = `query Page($first: Int = 5, $after: String, $account: ID) {
  __typename
  transactions(first: $first, after: $after, accountId: $account) {
    __typename
    pageInfo { hasNextPage endCursor }
    edges {
      cursor
      node {
        __typename id accountId connectionId date description amount direction balance type
        particulars code reference otherAccount cardSuffix
      }
    }
    nodes { id enrichment { __typename id description confidence merchant { name } category { name groups { grouping name } } } }
    nodes { id description }
  }
}`;
const TWO_PAGES = `{
  a: transactions(first: 2) { nodes { id enrichment { merchant { name } } } }
  b: transactions { pageInfo { hasNextPage } nodes { amount } }
}`;
const ENRICH_AND_PAGE = `query ($q: [EnrichmentQueryInput!]!) {
  enrich(queries: $q) { id merchant { name } }
  transactions(first: 3) { nodes { id enrichment { id merchant { name } } } }
}`;

const LOOKUPS = [
  { id: 'w', description: 'WOOLWORTHS NZ/1234 PONSONBY AUCKLAND', amount: -42.5, direction: 'DEBIT' },
  { description: 'Z ENERGY 2 GO QUEEN ST', connectionId: 'conn_abc123', amount: null },
  { id: null, description: 'NOTHING MATCHES THIS AT ALL 5550123', direction: 'CREDIT', amount: 12 },
  { id: 'u', description: 'Uber   Trip help.uber.com' },
];

interface Case {
  name: string;
  body: Record<string, unknown>;
  accept?: string;
  /** Which path the ordinary request should take. */
  path: 'direct' | 'apollo';
}

const CASES: Case[] = [
  { name: 'every field, duplicates merged', body: { query: FULL, variables: { q: LOOKUPS } }, path: 'direct' },
  {
    name: 'two aliased fields',
    body: { query: TWO_FIELDS, variables: { a: LOOKUPS.slice(0, 2), b: LOOKUPS.slice(1) } },
    path: 'direct',
  },
  {
    name: 'operation named',
    body: { query: FULL, variables: { q: LOOKUPS.slice(0, 1) }, operationName: 'Full' },
    path: 'direct',
  },
  {
    name: 'graphql-response+json',
    body: { query: FULL, variables: { q: LOOKUPS.slice(0, 1) } },
    accept: 'application/graphql-response+json, application/json;q=0.9',
    path: 'direct',
  },
  {
    name: 'invalid lookups (resolver errors)',
    body: {
      query: TWO_FIELDS,
      variables: { a: [{ description: '  ' }, { description: 'X', connectionId: 'nope' }], b: LOOKUPS.slice(0, 1) },
    },
    path: 'direct',
  },
  {
    name: 'over the request budget in the second field',
    body: { query: TWO_FIELDS, variables: { a: LOOKUPS, b: LOOKUPS.slice(0, 3) } },
    path: 'direct',
  },
  // Left to Apollo, answered the same way:
  { name: 'missing required input field', body: { query: FULL, variables: { q: [{ id: 'x' }] } }, path: 'apollo' },
  {
    name: 'unknown input field',
    body: { query: FULL, variables: { q: [{ description: 'A', x: 1 }] } },
    path: 'apollo',
  },
  {
    name: 'amount as a string',
    body: { query: FULL, variables: { q: [{ description: 'A', amount: '1' }] } },
    path: 'apollo',
  },
  { name: 'a single item for a list', body: { query: FULL, variables: { q: LOOKUPS[0] } }, path: 'apollo' },
  { name: 'variables missing', body: { query: FULL }, path: 'apollo' },
  {
    name: 'unknown operation name',
    body: { query: FULL, variables: { q: LOOKUPS }, operationName: 'Other' },
    path: 'apollo',
  },
  {
    name: 'literal argument',
    body: { query: '{ enrich(queries: [{ description: "Z ENERGY" }]) { merchant { name } } }' },
    path: 'direct',
  },
  { name: 'page: every field, variables left to their defaults', body: { query: PAGE }, path: 'direct' },
  {
    name: 'page: variables given, nulls included',
    body: { query: PAGE, variables: { first: 3, after: null, account: null, unused: 1 } },
    path: 'direct',
  },
  { name: 'page: two pages, literal and default arguments', body: { query: TWO_PAGES }, path: 'direct' },
  {
    name: 'page next to enrich',
    body: { query: ENRICH_AND_PAGE, variables: { q: LOOKUPS.slice(0, 2) } },
    path: 'direct',
  },
  {
    name: 'page over the request budget (rows enriched past it fail)',
    body: { query: ENRICH_AND_PAGE, variables: { q: LOOKUPS } },
    path: 'direct',
  },
  { name: 'page size out of range', body: { query: '{ transactions(first: 0) { nodes { id } } }' }, path: 'direct' },
  {
    name: 'page after a cursor from nowhere',
    body: { query: '{ transactions(after: "bogus") { nodes { id } } }' },
    path: 'direct',
  },
  {
    name: 'page with a non-null variable missing',
    body: { query: 'query ($n: Int!) { transactions(first: $n) { nodes { id } } }' },
    path: 'apollo',
  },
  { name: 'page size as a string', body: { query: PAGE, variables: { first: '3' } }, path: 'apollo' },
  {
    name: 'page through a fragment',
    body: { query: '{ transactions(first: 2) { ...P } } fragment P on TransactionConnection { nodes { id } }' },
    path: 'apollo',
  },
  {
    name: 'directive',
    body: {
      query: 'query ($q: [EnrichmentQueryInput!]!) { enrich(queries: $q) { id @include(if: true) } }',
      variables: { q: LOOKUPS },
    },
    path: 'apollo',
  },
  {
    name: 'fragment',
    body: {
      query:
        'query ($q: [EnrichmentQueryInput!]!) { enrich(queries: $q) { ...F } } fragment F on EnrichmentResult { id }',
      variables: { q: LOOKUPS },
    },
    path: 'apollo',
  },
  {
    name: 'validation error',
    body: { query: 'query ($q: [EnrichmentQueryInput!]!) { enrich(queries: $q) { nope } }', variables: { q: LOOKUPS } },
    path: 'apollo',
  },
  { name: 'accept text/html', body: { query: FULL, variables: { q: LOOKUPS } }, accept: 'text/html', path: 'apollo' },
  {
    name: 'enrich next to another field',
    body: {
      query: 'query ($q: [EnrichmentQueryInput!]!) { connection { connected } enrich(queries: $q) { id } }',
      variables: { q: LOOKUPS },
    },
    path: 'apollo',
  },
];

async function post(gateway: TestGateway, browser: Browser, body: Record<string, unknown>, accept?: string) {
  const response = await browser.request(`${gateway.url}/graphql`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...(accept ? { accept } : {}) },
    body: JSON.stringify(body),
  });
  return { status: response.status, contentType: response.headers.get('content-type'), text: response.text };
}

/**
 * The same request sent as is and then with an empty `extensions` (which Apollo ignores and the
 * direct path leaves to Apollo): the two answers must be identical; the first is returned.
 */
async function bothWays(gateway: TestGateway, browser: Browser, body: Record<string, unknown>) {
  const ordinary = await post(gateway, browser, body);
  expect(ordinary).toEqual(await post(gateway, browser, { ...body, extensions: {} }));
  return ordinary;
}

async function operationsByPath(gateway: TestGateway): Promise<Record<string, number>> {
  const text = await (await fetch(gateway.app.metricsUrl!)).text();
  const counts: Record<string, number> = { apollo: 0, direct: 0 };
  for (const match of text.matchAll(/gateway_graphql_operations_total\{[^}]*path="(\w+)"[^}]*\} (\d+)/g))
    counts[match[1]!] = (counts[match[1]!] ?? 0) + Number(match[2]);
  return counts;
}

describe('direct path for enrich and transactions queries', () => {
  it('answers byte for byte as Apollo does, and leaves everything unusual to Apollo', async () => {
    const gateway = await startGateway({ METRICS_PORT: '0', ADMIN_TOKEN, ENRICHMENT_MAX_QUERIES_PER_REQUEST: '6' });
    const browser = await signIn(gateway);
    for (const testCase of CASES) {
      const before = await operationsByPath(gateway);
      const ordinary = await post(gateway, browser, testCase.body, testCase.accept);
      const middle = await operationsByPath(gateway);
      const viaApollo = await post(gateway, browser, { ...testCase.body, extensions: {} }, testCase.accept);
      const after = await operationsByPath(gateway);
      expect({ case: testCase.name, ...ordinary }).toEqual({ case: testCase.name, ...viaApollo });
      // Which path served it (requests refused before execution count no operation at all).
      const other = testCase.path === 'direct' ? 'apollo' : 'direct';
      expect(middle[other], testCase.name).toBe(before[other]);
      if (testCase.path === 'direct') {
        expect(middle.direct, testCase.name).toBe(before.direct! + 1);
        expect(after.apollo, testCase.name).toBe(middle.apollo! + 1);
      }
    }
    // Spot checks that the comparison compared something.
    const full = JSON.parse((await post(gateway, browser, CASES[0]!.body)).text);
    expect(full.data.enrich).toHaveLength(4);
    expect(full.data.enrich[0].merchant.name).toBeTruthy();
    expect(full.errors).toBeUndefined();
    const budget = JSON.parse((await post(gateway, browser, CASES[5]!.body)).text);
    expect(budget.data).toEqual({ first: expect.any(Array), second: null });
    expect(budget.errors[0].extensions.code).toBe('BAD_USER_INPUT');
    const page = JSON.parse((await post(gateway, browser, { query: PAGE })).text);
    expect(page.errors).toBeUndefined();
    expect(page.data.transactions.edges).toHaveLength(5);
    expect(page.data.transactions.nodes[0]).toEqual({
      id: page.data.transactions.edges[0].node.id,
      description: page.data.transactions.edges[0].node.description,
      enrichment: expect.objectContaining({ id: page.data.transactions.edges[0].node.id }),
    });
    const pastBudget = JSON.parse(
      (await post(gateway, browser, { query: ENRICH_AND_PAGE, variables: { q: LOOKUPS } })).text,
    );
    expect(pastBudget.data.enrich).toHaveLength(4);
    expect(pastBudget.data.transactions.nodes.map((row: { enrichment: unknown }) => row.enrichment === null)).toEqual([
      false,
      false,
      true,
    ]);
    expect(pastBudget.errors).toEqual([
      expect.objectContaining({
        path: ['transactions', 'nodes', 2, 'enrichment'],
        extensions: expect.objectContaining({ code: 'BAD_USER_INPUT' }),
      }),
    ]);

    // The next page, by the cursors the first one gave: the same bytes both ways, and no overlap.
    const next = { query: PAGE, variables: { after: page.data.transactions.pageInfo.endCursor } };
    const nextDirect = await bothWays(gateway, browser, next);
    const nextIds = JSON.parse(nextDirect.text).data.transactions.nodes.map((row: { id: string }) => row.id);
    expect(nextIds).toHaveLength(5);
    for (const row of page.data.transactions.nodes) expect(nextIds).not.toContain(row.id);
  });

  it('reports an upstream failure and a missing second factor exactly as Apollo does', async () => {
    const gateway = await startGateway({ METRICS_PORT: '0', ADMIN_TOKEN });
    const browser = await signIn(gateway);
    const body = { query: TWO_FIELDS, variables: { a: LOOKUPS.slice(0, 2), b: LOOKUPS.slice(2) } };

    gateway.sandbox.setEnrichmentFault({ status: 500 });
    const failed = await bothWays(gateway, browser, body);
    gateway.sandbox.setEnrichmentFault({});
    const parsed = JSON.parse(failed.text);
    expect(parsed.data).toEqual({ first: null, second: null });
    expect(parsed.errors.map((error: { extensions: { code: string } }) => error.extensions.code)).toEqual([
      'UPSTREAM_UNAVAILABLE',
      'UPSTREAM_UNAVAILABLE',
    ]);

    // A page: the platform's read failing fails the field (non-null: data null); the search
    // failing nulls each row's enrichment, one error per row.
    const page = { query: ENRICH_AND_PAGE, variables: { q: LOOKUPS.slice(0, 1) } };
    gateway.sandbox.setCoreFault({ status: 500 });
    const pageFailed = await bothWays(gateway, browser, page);
    gateway.sandbox.setCoreFault({});
    expect(JSON.parse(pageFailed.text)).toMatchObject({
      data: null,
      errors: [{ path: ['transactions'], extensions: { code: 'UPSTREAM_UNAVAILABLE' } }],
    });
    // (A lookup the cache cannot answer: the first page request enriched LOOKUPS[0].)
    const uncached = { ...page, variables: { q: [{ description: 'SEARCH FAILS FOR THIS ONE' }] } };
    gateway.sandbox.setEnrichmentFault({ status: 500 });
    const searchFailed = await bothWays(gateway, browser, uncached);
    gateway.sandbox.setEnrichmentFault({});
    const searchAnswer = JSON.parse(searchFailed.text);
    expect(searchAnswer.data.enrich).toBeNull();
    expect(searchAnswer.data.transactions.nodes.map((row: { enrichment: unknown }) => row.enrichment)).toEqual([
      null,
      null,
      null,
    ]);
    expect(searchAnswer.errors.map((error: { path: unknown[] }) => error.path.join('.')).sort()).toEqual([
      'enrich',
      'transactions.nodes.0.enrichment',
      'transactions.nodes.1.enrichment',
      'transactions.nodes.2.enrichment',
    ]);

    const reader = new Browser();
    await signInToApp(reader, gateway.sandbox, gateway.url, 'reader@demo.example');
    const refused = await bothWays(gateway, reader, body);
    expect(JSON.parse(refused.text).errors[0].extensions.code).toBe('MFA_REQUIRED');
    const pageRefused = await bothWays(gateway, reader, page);
    expect(JSON.parse(pageRefused.text).errors.map((error: { path: unknown[] }) => error.path)).toEqual([
      ['enrich'],
      ['transactions'],
    ]);
    expect((await operationsByPath(gateway)).direct).toBe(5);
  });
});
