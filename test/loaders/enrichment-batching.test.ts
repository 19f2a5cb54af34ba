import { describe, expect, it } from 'vitest';
import { EnrichDocument, MeAndEnrichDocument, TwoEnrichFieldsDocument } from '../__generated__/graphql.js';
import { execute, signIn, startGateway, type TestGateway } from '../support/gateway.js';

function searches(gateway: TestGateway) {
  return gateway.sandbox.requests({ service: 'enrichment', method: 'POST', path: '/v1/search' });
}

const SAMPLES = [
  'WOOLWORTHS NZ/1234 PONSONBY AUCKLAND',
  "PAK'NSAVE WAIRAU ROAD AUCKLAND",
  'Z ENERGY KILLARNEY ST HAMILTON',
  'NETFLIX.COM AUCKLAND',
  'BUNNINGS 9482 MT WELLINGTON',
];

describe('enrichment batching', () => {
  it('sends 250 distinct queries with a batch limit of 100 in exactly 3 upstream calls', async () => {
    const gateway = await startGateway({ ENRICHMENT_MAX_BATCH: '100', ENRICHMENT_CACHE_TTL_SECONDS: '0' });
    const browser = await signIn(gateway);
    const queries = Array.from({ length: 250 }, (_, i) => ({
      id: `tx-${i}`,
      description: `${SAMPLES[i % SAMPLES.length]} REF${i}`,
    }));

    const response = await execute(gateway, browser, EnrichDocument, { queries });

    expect(response.errors).toBeUndefined();
    expect(response.data!.enrich!.map((r) => r.id)).toEqual(queries.map((q) => q.id));
    const calls = searches(gateway);
    expect(calls.map((call) => (call.body as unknown[]).length)).toEqual([100, 100, 50]);
    const sent = calls.flatMap((call) => (call.body as Array<{ description: string }>).map((q) => q.description));
    expect(new Set(sent)).toEqual(new Set(queries.map((q) => q.description)));
  });

  it('batches two aliased enrich fields into one upstream call', async () => {
    const gateway = await startGateway();
    const browser = await signIn(gateway);
    const response = await execute(gateway, browser, TwoEnrichFieldsDocument, {
      first: [{ id: 'a', description: SAMPLES[0]! }],
      second: [{ id: 'b', description: SAMPLES[2]! }],
    });

    expect(response.data?.first?.[0]).toEqual({ id: 'a', merchant: { name: 'Woolworths' } });
    expect(response.data?.second?.[0]).toEqual({ id: 'b', merchant: { name: 'Z Energy' } });
    expect(searches(gateway)).toHaveLength(1);
    expect((searches(gateway)[0]!.body as unknown[]).length).toBe(2);
  });

  it('sends identical queries once and answers each caller id', async () => {
    const gateway = await startGateway();
    const browser = await signIn(gateway);
    const response = await execute(gateway, browser, TwoEnrichFieldsDocument, {
      first: [
        { id: 'one', description: SAMPLES[1]! },
        { id: 'two', description: SAMPLES[1]! },
      ],
      second: [{ id: 'three', description: SAMPLES[1]! }],
    });

    expect(response.data?.first?.map((r) => r.id)).toEqual(['one', 'two']);
    expect(response.data?.second?.[0]?.merchant?.name).toBe("PAK'nSAVE");
    const [call] = searches(gateway);
    expect(call!.body).toEqual([{ id: 'q0', description: SAMPLES[1] }]);
  });

  it('keeps apart queries that differ only in amount or direction', async () => {
    const gateway = await startGateway();
    const browser = await signIn(gateway);
    await execute(gateway, browser, EnrichDocument, {
      queries: [
        { description: SAMPLES[0]!, amount: -20 },
        { description: SAMPLES[0]!, amount: 20 },
        { description: SAMPLES[0]!, direction: 'DEBIT' },
      ],
    });
    expect((searches(gateway)[0]!.body as unknown[]).length).toBe(3);
  });

  it('matches results by correlation id when the upstream returns them in another order', async () => {
    const gateway = await startGateway();
    gateway.sandbox.setEnrichmentFault({ reverseOrder: true });
    const browser = await signIn(gateway);
    const response = await execute(gateway, browser, EnrichDocument, {
      queries: SAMPLES.map((description, i) => ({ id: `caller-${i}`, description })),
    });

    expect(response.data!.enrich!.map((r) => [r.id, r.description, r.merchant?.name])).toEqual([
      ['caller-0', SAMPLES[0], 'Woolworths'],
      ['caller-1', SAMPLES[1], "PAK'nSAVE"],
      ['caller-2', SAMPLES[2], 'Z Energy'],
      ['caller-3', SAMPLES[3], 'Netflix'],
      ['caller-4', SAMPLES[4], 'Bunnings Warehouse'],
    ]);
    const answered = gateway.sandbox.requests({ service: 'enrichment' });
    expect(answered).toHaveLength(1);
  });

  it('sends the enrichment call with only the enrichment key, and core calls never with it', async () => {
    const gateway = await startGateway();
    const browser = await signIn(gateway);
    await execute(gateway, browser, MeAndEnrichDocument, {
      queries: [{ id: 'x', description: SAMPLES[0]!, connectionId: 'conn_abc123', amount: -12.5, direction: 'DEBIT' }],
    });

    const [search] = searches(gateway);
    const { credentials } = gateway.sandbox;
    expect(search!.headers.authorization).toBe(`Bearer ${credentials.enrichmentKey}`);
    expect(search!.headers['x-service-id']).toBeUndefined();
    expect(JSON.stringify(search!.headers)).not.toContain(credentials.appToken);
    expect(JSON.stringify(search!.headers)).not.toContain(credentials.appSecret);
    expect(search!.body).toEqual([
      { id: 'q0', description: SAMPLES[0], _connection: 'conn_abc123', amount: -12.5, direction: 'DEBIT' },
    ]);

    const core = gateway.sandbox.requests({ service: 'core' });
    expect(core.map((r) => `${r.method} ${r.path}`)).toEqual(expect.arrayContaining(['POST /v1/token', 'GET /v1/me']));
    for (const request of core) expect(JSON.stringify(request)).not.toContain(credentials.enrichmentKey);
    const me = core.find((r) => r.path === '/v1/me')!;
    expect(me.headers['x-service-id']).toBe(credentials.appToken);
    expect(me.headers.authorization).toMatch(/^Bearer user_token_/);
  });

  it('uses the configured header prefix for the app id header', async () => {
    const gateway = await startGateway({ PLATFORM_HEADER_PREFIX: 'X-Akahu' });
    const browser = await signIn(gateway);
    await execute(gateway, browser, MeAndEnrichDocument, { queries: [{ description: SAMPLES[0]! }] });
    const me = gateway.sandbox.requests({ path: '/v1/me' }).at(-1)!;
    expect(me.headers['x-akahu-id']).toBe(gateway.sandbox.credentials.appToken);
    expect(me.headers['x-service-id']).toBeUndefined();
  });
});
