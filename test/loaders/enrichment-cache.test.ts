import { describe, expect, it } from 'vitest';
import { EnrichDocument } from '../__generated__/graphql.js';
import { execute, signIn, startGateway } from '../support/gateway.js';

const WOOLWORTHS = { description: 'WOOLWORTHS NZ/1234 PONSONBY AUCKLAND' };
const BUNNINGS = { description: 'BUNNINGS 9482 MT WELLINGTON' };
const KFC = { description: 'KFC MANUKAU' };

describe('enrichment cache', () => {
  it('answers a repeated lookup from the cache, across requests and users', async () => {
    const gateway = await startGateway();
    const aroha = await signIn(gateway, 0);
    const james = await signIn(gateway, 1);

    const first = await execute(gateway, aroha, EnrichDocument, { queries: [WOOLWORTHS] });
    const second = await execute(gateway, james, EnrichDocument, {
      queries: [{ id: 'mine', ...WOOLWORTHS }, BUNNINGS],
    });

    expect(second.data!.enrich![0]).toEqual({ ...first.data!.enrich![0], id: 'mine' });
    const calls = gateway.sandbox.requests({ path: '/v1/search' });
    expect(calls.map((call) => (call.body as Array<{ description: string }>).map((q) => q.description))).toEqual([
      [WOOLWORTHS.description],
      [BUNNINGS.description],
    ]);
  });

  it('forgets entries after the TTL', async () => {
    let now = Date.parse('2026-11-21T00:00:00Z');
    const gateway = await startGateway({ ENRICHMENT_CACHE_TTL_SECONDS: '60' }, { clock: () => now });
    const browser = await signIn(gateway);

    await execute(gateway, browser, EnrichDocument, { queries: [WOOLWORTHS] });
    now += 59_000;
    await execute(gateway, browser, EnrichDocument, { queries: [WOOLWORTHS] });
    expect(gateway.sandbox.requests({ path: '/v1/search' })).toHaveLength(1);
    now += 2_000;
    await execute(gateway, browser, EnrichDocument, { queries: [WOOLWORTHS] });
    expect(gateway.sandbox.requests({ path: '/v1/search' })).toHaveLength(2);
  });

  it('holds at most the configured number of entries, evicting the least recently used', async () => {
    const gateway = await startGateway({ ENRICHMENT_CACHE_MAX_ENTRIES: '2' });
    const browser = await signIn(gateway);

    await execute(gateway, browser, EnrichDocument, { queries: [WOOLWORTHS, BUNNINGS] });
    await execute(gateway, browser, EnrichDocument, { queries: [KFC] }); // evicts WOOLWORTHS
    await execute(gateway, browser, EnrichDocument, { queries: [BUNNINGS, KFC] }); // both cached
    await execute(gateway, browser, EnrichDocument, { queries: [WOOLWORTHS] }); // fetched again

    const sent = gateway.sandbox
      .requests({ path: '/v1/search' })
      .map((call) => (call.body as Array<{ description: string }>).map((q) => q.description));
    expect(sent).toEqual([[WOOLWORTHS.description, BUNNINGS.description], [KFC.description], [WOOLWORTHS.description]]);
  });

  it('never caches a failure', async () => {
    const gateway = await startGateway();
    const browser = await signIn(gateway);
    gateway.sandbox.setEnrichmentFault({ status: 503 });
    expect(
      (await execute(gateway, browser, EnrichDocument, { queries: [WOOLWORTHS] })).errors?.[0]?.extensions?.code,
    ).toBe('UPSTREAM_UNAVAILABLE');
    gateway.sandbox.setEnrichmentFault({});
    const retry = await execute(gateway, browser, EnrichDocument, { queries: [WOOLWORTHS] });
    expect(retry.data!.enrich![0]!.merchant?.name).toBe('Woolworths');
    expect(gateway.sandbox.requests({ path: '/v1/search' })).toHaveLength(2);
  });

  it('can be turned off', async () => {
    const gateway = await startGateway({ ENRICHMENT_CACHE_TTL_SECONDS: '0' });
    const browser = await signIn(gateway);
    await execute(gateway, browser, EnrichDocument, { queries: [WOOLWORTHS] });
    await execute(gateway, browser, EnrichDocument, { queries: [WOOLWORTHS] });
    expect(gateway.sandbox.requests({ path: '/v1/search' })).toHaveLength(2);
  });
});
