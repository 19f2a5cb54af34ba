import { print } from 'graphql';
import { describe, expect, it } from 'vitest';
import {
  EnrichAndTransactionsDocument,
  EnrichDocument,
  ThreeTransactionPagesDocument,
  TransactionsDocument,
  TwoTransactionPagesDocument,
  type EnrichQuery,
} from '../__generated__/graphql.js';
import type { Browser } from '../support/browser.js';
import { execute, signIn, startGateway, type GraphQLResponse, type TestGateway } from '../support/gateway.js';
import { openRaw } from '../support/raw-socket.js';
import { sessionCookie } from '../support/session-cookie.js';

function searches(gateway: TestGateway) {
  return gateway.sandbox.requests({ service: 'enrichment', method: 'POST', path: '/v1/search' });
}

/** What the gateway would send for a transaction row (the loader's key). */
const lookupKey = (row: { description: string; amount: number; direction: string; connectionId: string }) =>
  JSON.stringify([row.description, row.amount, row.direction, row.connectionId]);

async function pages(gateway: TestGateway, browser: Browser, size: number, count: number) {
  const rows = [];
  const cursors: Array<string | null> = [null];
  for (let page = 0; page < count; page += 1) {
    const answer = await execute(gateway, browser, TransactionsDocument, {
      first: size,
      after: cursors[page] ?? undefined,
    });
    rows.push(...answer.data!.transactions.edges.map((edge) => edge.node));
    cursors.push(answer.data!.transactions.pageInfo.endCursor);
  }
  return { rows, cursors };
}

// No cache and no cross-request window: only the request's own batching is measured here.
const ALONE = { ENRICHMENT_CACHE_TTL_SECONDS: '0', ENRICHMENT_BATCH_WINDOW_MS: '0' };

describe('one enrichment batch per request, whatever its shape', () => {
  it('sends root enrich lookups and the lookups of a transactions page in one call', async () => {
    const gateway = await startGateway(ALONE);
    const browser = await signIn(gateway);
    const before = searches(gateway).length;
    gateway.sandbox.setCoreFault({ delayMs: 60, pathPrefix: '/v1/transactions', times: 1 });
    const response = await execute(gateway, browser, EnrichAndTransactionsDocument, {
      queries: [
        { id: 'a', description: 'WOOLWORTHS NZ/1234 PONSONBY AUCKLAND' },
        { id: 'b', description: 'Z ENERGY KILLARNEY ST HAMILTON' },
      ],
      first: 20,
    });
    expect(response.errors).toBeUndefined();
    expect(response.data!.enrich!.map((result) => result.merchant?.name)).toEqual(['Woolworths', 'Z Energy']);
    expect(response.data!.transactions.nodes).toHaveLength(20);
    expect(searches(gateway).length - before).toBe(1);
  });

  it('sends the lookups of two aliased transactions fields in one call', async () => {
    const gateway = await startGateway(ALONE);
    const browser = await signIn(gateway);
    const { cursors } = await pages(gateway, browser, 10, 1);
    const before = searches(gateway).length;
    // One page arrives 60 ms after the other: the first page's lookups must wait for the second's.
    gateway.sandbox.setCoreFault({ delayMs: 60, pathPrefix: '/v1/transactions', times: 1 });
    const response = await execute(gateway, browser, TwoTransactionPagesDocument, { first: 10, after: cursors[1]! });
    expect(response.errors).toBeUndefined();
    expect(response.data!.firstPage.nodes).toHaveLength(10);
    expect(response.data!.secondPage.nodes).toHaveLength(10);
    expect(searches(gateway).length - before).toBe(1);
  });

  it('sends three pages of 100 transactions at a batch limit of 100 in ⌈distinct lookups / 100⌉ calls', async () => {
    const gateway = await startGateway({ ...ALONE, ENRICHMENT_MAX_BATCH: '100' });
    const browser = await signIn(gateway);
    const { rows, cursors } = await pages(gateway, browser, 100, 3);
    expect(rows).toHaveLength(300);
    const distinct = new Set(rows.map(lookupKey)).size;
    const before = searches(gateway).length;
    gateway.sandbox.setCoreFault({ delayMs: 60, pathPrefix: '/v1/transactions', times: 1 });
    const response = await execute(gateway, browser, ThreeTransactionPagesDocument, {
      first: 100,
      second: cursors[1]!,
      third: cursors[2]!,
    });
    expect(response.errors).toBeUndefined();
    const calls = searches(gateway).slice(before);
    expect(calls).toHaveLength(Math.ceil(distinct / 100));
    expect(calls.reduce((sum, call) => sum + (call.body as unknown[]).length, 0)).toBe(distinct);
    expect(distinct).toBeGreaterThan(200); // three calls, not a lucky two
  });
});

/**
 * The gateway's first GraphQL request validates the document and warms the pipeline up, which on
 * a loaded machine can outlast a 20 ms window; these tests are about merging, so one request goes
 * first (its search is not counted).
 */
async function warmUp(gateway: TestGateway, browser: Browser) {
  const answer = await execute(gateway, browser, EnrichDocument, { queries: [{ id: 'warm', description: 'WARM UP' }] });
  expect(answer.errors).toBeUndefined();
}

/**
 * Sends each body as a request on a connection of its own, opened and accepted first, the writes
 * in one go: the gateway counts an accepted connection as joinable until its first request, so
 * these requests are concurrent as the gateway sees them. (With fetch, a request that needed a new
 * connection could arrive, on a loaded machine, after the first one's lookups had gone out alone:
 * nothing in flight could have joined them, so the call had no reason to wait.)
 */
async function postTogether(gateway: TestGateway, browser: Browser, bodies: string[]): Promise<unknown[]> {
  const { host } = new URL(gateway.url);
  const cookie = sessionCookie(browser, gateway.url);
  const connections = await Promise.all(bodies.map(() => openRaw(gateway.url)));
  // In-process: a turn of the loop after the connects, the gateway has accepted every connection.
  await new Promise((resolve) => setImmediate(resolve));
  await new Promise((resolve) => setImmediate(resolve));
  connections.forEach((connection, index) =>
    connection.socket.write(
      `POST /graphql HTTP/1.1\r\nhost: ${host}\r\ncookie: ${cookie}\r\ncontent-type: application/json\r\n` +
        `content-length: ${Buffer.byteLength(bodies[index]!)}\r\nconnection: close\r\n\r\n${bodies[index]}`,
    ),
  );
  return Promise.all(
    connections.map(async (connection) => {
      await connection.closed;
      const response = connection.received();
      expect(response).toMatch(/^HTTP\/1\.1 200 /);
      return JSON.parse(response.slice(response.indexOf('\r\n\r\n') + 4));
    }),
  );
}

describe('a window shared by concurrent requests', () => {
  it('merges 4 concurrent requests of 1 lookup each into one call', async () => {
    // The widest window: the call waits for the requests in flight, however slowly a loaded
    // machine parses them (bench:enrichment measures the default window).
    const gateway = await startGateway({ ENRICHMENT_CACHE_TTL_SECONDS: '0', ENRICHMENT_BATCH_WINDOW_MS: '100' });
    const browser = await signIn(gateway);
    await warmUp(gateway, browser);
    const before = searches(gateway).length;
    const descriptions = [
      'WOOLWORTHS NZ/1234 PONSONBY AUCKLAND',
      "PAK'NSAVE WAIRAU ROAD AUCKLAND",
      'Z ENERGY KILLARNEY ST HAMILTON',
      'NETFLIX.COM AUCKLAND',
    ];
    const answers = (await postTogether(
      gateway,
      browser,
      descriptions.map((description, index) =>
        JSON.stringify({
          query: print(EnrichDocument),
          variables: { queries: [{ id: `mine-${index}`, description }] },
        }),
      ),
    )) as Array<GraphQLResponse<EnrichQuery>>;
    expect(answers.map((answer) => answer.data!.enrich![0]!.id)).toEqual(['mine-0', 'mine-1', 'mine-2', 'mine-3']);
    expect(answers.map((answer) => answer.data!.enrich![0]!.merchant?.name)).toEqual([
      'Woolworths',
      "PAK'nSAVE",
      'Z Energy',
      'Netflix',
    ]);
    expect(searches(gateway).length - before).toBe(1);
  });

  it('makes at most ⌈100 / limit⌉ + 1 calls for 50 concurrent requests of 2 lookups, each with its own results', async () => {
    // A wide window, so the test is about merging (full calls go out at once), not about how fast
    // this machine parses 50 requests; bench:enrichment measures the default window.
    const gateway = await startGateway({
      ENRICHMENT_CACHE_TTL_SECONDS: '0',
      ENRICHMENT_BATCH_WINDOW_MS: '100',
      ENRICHMENT_MAX_BATCH: '40',
    });
    const browser = await signIn(gateway);
    await warmUp(gateway, browser);
    const before = searches(gateway).length;
    const answers = await Promise.all(
      Array.from({ length: 50 }, (_, n) =>
        execute(gateway, browser, EnrichDocument, {
          queries: [
            { id: `r${n}-a`, description: `WOOLWORTHS NZ/${n} PONSONBY AUCKLAND` },
            { id: `r${n}-b`, description: `Z ENERGY ${n} KILLARNEY ST HAMILTON` },
          ],
        }),
      ),
    );
    answers.forEach((answer, n) => {
      expect(answer.errors).toBeUndefined();
      expect(answer.data!.enrich!.map((result) => [result.id, result.description, result.merchant?.name])).toEqual([
        [`r${n}-a`, `WOOLWORTHS NZ/${n} PONSONBY AUCKLAND`, 'Woolworths'],
        [`r${n}-b`, `Z ENERGY ${n} KILLARNEY ST HAMILTON`, 'Z Energy'],
      ]);
    });
    const calls = searches(gateway).slice(before);
    expect(calls.length).toBeLessThanOrEqual(Math.ceil(100 / 40) + 1);
    expect(calls.reduce((sum, call) => sum + (call.body as unknown[]).length, 0)).toBe(100);
  });

  it('fails only the lookups of a failed shared call', async () => {
    const gateway = await startGateway({
      ENRICHMENT_CACHE_TTL_SECONDS: '0',
      ENRICHMENT_BATCH_WINDOW_MS: '100',
      ENRICHMENT_MAX_BATCH: '2',
    });
    const browser = await signIn(gateway);
    await warmUp(gateway, browser);
    gateway.sandbox.setEnrichmentFault({ status: 500, times: 1 });
    const answers = (await postTogether(
      gateway,
      browser,
      [
        'WOOLWORTHS NZ/1 PONSONBY AUCKLAND',
        'WOOLWORTHS NZ/2 PONSONBY AUCKLAND',
        'Z ENERGY 3 KILLARNEY ST HAMILTON',
        'Z ENERGY 4 KILLARNEY ST HAMILTON',
      ].map((description, n) =>
        JSON.stringify({ query: print(EnrichDocument), variables: { queries: [{ id: `q${n}`, description }] } }),
      ),
    )) as Array<GraphQLResponse<EnrichQuery>>;
    const failed = answers.filter((answer) => answer.errors !== undefined);
    const succeeded = answers.filter((answer) => answer.errors === undefined);
    // Two calls of two lookups; the first failed: two requests see the error, two their results.
    expect(failed).toHaveLength(2);
    expect(succeeded).toHaveLength(2);
    for (const answer of succeeded) expect(answer.data!.enrich![0]!.merchant?.name).toMatch(/Woolworths|Z Energy/);
    for (const answer of failed) expect(answer.errors![0]!.extensions?.code).toBe('UPSTREAM_UNAVAILABLE');
  });
});
