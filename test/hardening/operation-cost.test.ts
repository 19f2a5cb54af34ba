import { describe, expect, it } from 'vitest';
import type { Browser } from '../support/browser.js';
import { signIn, startGateway, type TestGateway } from '../support/gateway.js';
import { socketClient } from '../support/sockets.js';

async function post(gateway: TestGateway, browser: Browser, body: unknown) {
  const response = await browser.request(`${gateway.url}/graphql`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  return {
    status: response.status,
    body: JSON.parse(response.text) as {
      data?: unknown;
      errors?: Array<{ message: string; extensions?: Record<string, unknown> }>;
    },
  };
}

/** 4,990 spreads of one fragment: tiny as text, thousands of fields once expanded. */
const SPREADS = `query { ${'...F '.repeat(4_990)} } fragment F on Query { me { id email preferredName } }`;
const ENRICH = 'query ($queries: [EnrichmentQueryInput!]!) { enrich(queries: $queries) { id } }';
const manyQueries = (count: number) =>
  Array.from({ length: count }, (_, index) => ({ id: `${index}`, description: 'Z ENERGY' }));

function searches(gateway: TestGateway) {
  return gateway.sandbox.requests({ service: 'enrichment', method: 'POST', path: '/v1/search' });
}

describe('cost before execution', () => {
  it('refuses a document whose fragment expansion costs too much, before executing anything', async () => {
    const gateway = await startGateway();
    const browser = await signIn(gateway);
    const before = gateway.sandbox.requests({ path: '/v1/me' }).length;
    const refused = await post(gateway, browser, { query: SPREADS });
    expect(refused.body.errors?.[0]?.message).toMatch(/cost/);
    expect(refused.status).toBe(400);
    expect(refused.body.errors?.[0]?.extensions).toMatchObject({ code: 'GRAPHQL_VALIDATION_FAILED', limit: 50_000 });
    expect(gateway.sandbox.requests({ path: '/v1/me' })).toHaveLength(before);
  });

  it('refuses a variable list longer than the per-request enrichment limit before coercing it', async () => {
    const gateway = await startGateway({ ENRICHMENT_MAX_QUERIES_PER_REQUEST: '1000' });
    const browser = await signIn(gateway);
    const refused = await post(gateway, browser, { query: ENRICH, variables: { queries: manyQueries(12_000) } });
    expect(refused.status).toBe(400);
    expect(refused.body.errors?.[0]?.extensions).toMatchObject({
      code: 'BAD_USER_INPUT',
      limit: 1000,
      requested: 12_000,
    });
    expect(searches(gateway)).toHaveLength(0);
    // At the limit it runs.
    const accepted = await post(gateway, browser, { query: ENRICH, variables: { queries: manyQueries(1000) } });
    expect(accepted.status).toBe(200);
    expect(accepted.body.errors).toBeUndefined();
  });

  it('applies the same cost and list limits on the socket', async () => {
    const gateway = await startGateway();
    const browser = await signIn(gateway);
    const { client } = socketClient(gateway, browser);
    const run = (payload: { query: string; variables?: Record<string, unknown> }) =>
      new Promise<unknown>((resolve) => {
        const results: unknown[] = [];
        client.subscribe(payload, {
          next: (value) => results.push(value),
          error: resolve,
          complete: () => resolve(results),
        });
      });
    // The same verdict as over HTTP: the cost first, then the expansion, both refusals of validation.
    const refused = (await run({ query: SPREADS })) as Array<{ message: string; extensions: Record<string, unknown> }>;
    expect(refused[0]).toMatchObject({ message: expect.stringMatching(/cost/), extensions: { limit: 50_000 } });
    expect(refused.map((error) => error.extensions.code)).toEqual([
      'GRAPHQL_VALIDATION_FAILED',
      'GRAPHQL_VALIDATION_FAILED',
    ]);
    expect(await run({ query: ENRICH, variables: { queries: manyQueries(1_001) } })).toEqual([
      expect.objectContaining({ extensions: expect.objectContaining({ code: 'BAD_USER_INPUT', requested: 1_001 }) }),
    ]);
    expect(searches(gateway)).toHaveLength(0);
  });
});
