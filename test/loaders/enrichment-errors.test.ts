import { describe, expect, it } from 'vitest';
import { EnrichDocument, MeAndEnrichDocument } from '../__generated__/graphql.js';
import { execute, signIn, startGateway } from '../support/gateway.js';

const GOOD = { id: 'ok', description: 'KFC MANUKAU' };

describe('enrichment errors', () => {
  it('refuses an empty description with BAD_USER_INPUT naming the query, sending nothing', async () => {
    const gateway = await startGateway();
    const browser = await signIn(gateway);
    const response = await execute(gateway, browser, EnrichDocument, {
      queries: [GOOD, { id: 'blank', description: '   ' }],
    });

    expect(response.data?.enrich).toBeNull();
    const [error] = response.errors!;
    expect(error!.extensions?.code).toBe('BAD_USER_INPUT');
    expect(error!.message).toContain('queries[1] (id "blank").description must not be empty');
    expect(error!.extensions?.invalidQueries).toEqual([
      { index: 1, id: 'blank', field: 'description', problem: 'must not be empty' },
    ]);
    expect(gateway.sandbox.requests({ path: '/v1/search' })).toHaveLength(0);
  });

  it('refuses a malformed connection id and reports every bad query at once', async () => {
    const gateway = await startGateway();
    const browser = await signIn(gateway);
    const response = await execute(gateway, browser, EnrichDocument, {
      queries: [
        { id: 'a', description: 'KFC', connectionId: 'acc_123' },
        GOOD,
        { id: 'c', description: 'KFC', amount: 10, direction: 'DEBIT' },
      ],
    });
    const problems = response.errors![0]!.extensions!.invalidQueries as Array<{ index: number; field: string }>;
    expect(problems.map((p) => [p.index, p.field])).toEqual([
      [0, 'connectionId'],
      [2, 'direction'],
    ]);
    expect(gateway.sandbox.requests({ path: '/v1/search' })).toHaveLength(0);
  });

  it('refuses more queries in one request than the configured limit', async () => {
    const gateway = await startGateway({ ENRICHMENT_MAX_QUERIES_PER_REQUEST: '10' });
    const browser = await signIn(gateway);
    const response = await execute(gateway, browser, EnrichDocument, {
      queries: Array.from({ length: 11 }, (_, i) => ({ description: `KFC ${i}` })),
    });
    expect(response.errors![0]!.extensions).toMatchObject({ code: 'BAD_USER_INPUT', limit: 10, requested: 11 });
    expect(gateway.sandbox.requests({ path: '/v1/search' })).toHaveLength(0);
  });

  it('reports an upstream failure on the enrichment field only, keeping other data', async () => {
    const gateway = await startGateway();
    const browser = await signIn(gateway);
    gateway.sandbox.setEnrichmentFault({ status: 503 });
    const response = await execute(gateway, browser, MeAndEnrichDocument, { queries: [GOOD] });

    expect(response.status).toBe(200);
    expect(response.data?.me.id).toMatch(/^user_/);
    expect(response.data?.enrich).toBeNull();
    expect(response.errors).toHaveLength(1);
    expect(response.errors![0]).toMatchObject({
      path: ['enrich'],
      extensions: { code: 'UPSTREAM_UNAVAILABLE', upstream: 'enrichment' },
    });
    expect(response.errors![0]!.message).not.toContain('sandbox fault'); // upstream bodies stay inside
  });

  it('maps an upstream 429 to RATE_LIMITED with a retry hint', async () => {
    const gateway = await startGateway();
    const browser = await signIn(gateway);
    gateway.sandbox.setEnrichmentFault({ status: 429 });
    const response = await execute(gateway, browser, EnrichDocument, { queries: [GOOD] });
    expect(response.errors![0]!.extensions).toMatchObject({
      code: 'RATE_LIMITED',
      retryAfterSeconds: expect.any(Number),
    });
  });

  it('reports an upstream that hangs as UPSTREAM_TIMEOUT within the deadline', async () => {
    const gateway = await startGateway({ ENRICHMENT_TIMEOUT_MS: '300' });
    const browser = await signIn(gateway);
    gateway.sandbox.setEnrichmentFault({ delayMs: 30_000 });
    const started = performance.now();
    const response = await execute(gateway, browser, MeAndEnrichDocument, { queries: [GOOD] });
    const elapsed = performance.now() - started;

    expect(response.errors![0]).toMatchObject({ path: ['enrich'], extensions: { code: 'UPSTREAM_TIMEOUT' } });
    expect(response.data?.me.id).toMatch(/^user_/);
    expect(elapsed).toBeLessThan(5_000);
  });

  it('returns an empty match list, not an error, when nothing matches', async () => {
    const gateway = await startGateway();
    const browser = await signIn(gateway);
    const response = await execute(gateway, browser, EnrichDocument, {
      queries: [{ id: 'z', description: 'XQZW 9981 UNKNOWN' }],
    });
    expect(response.errors).toBeUndefined();
    expect(response.data!.enrich![0]).toMatchObject({
      id: 'z',
      confidence: null,
      merchant: null,
      category: null,
      matches: [],
    });
  });
});
