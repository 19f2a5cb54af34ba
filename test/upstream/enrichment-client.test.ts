import { describe, expect, it } from 'vitest';
import { createLogger } from '@open-finance-gateway/common/logger';
import { createEnrichmentClient } from '../../src/upstream/enrichment-client.js';
import type { UpstreamHttp } from '../../src/upstream/upstream-http.js';

/** An upstream that answers every search with `body`, as parsed JSON. */
function answering(body: unknown): UpstreamHttp {
  return {
    name: 'enrichment',
    send: async () => ({ status: 200, headers: {}, body }),
    close: async () => undefined,
  };
}

const logger = createLogger({ level: 'silent' });
const search = (body: unknown) =>
  createEnrichmentClient(answering(body), 'key', logger).search([{ id: 'q0', description: 'KFC' }]);

const wellFormed = () => ({
  confidence: 0.9,
  category: { _id: 'cat_1', name: 'Fast food', groups: { personal_finance: { _id: 'grp_1', name: 'Lifestyle' } } },
  merchant: { _id: 'merchant_1', name: 'KFC', website: 'https://kfc.example', extra: 'not in the contract' },
});

describe('the enrichment client reads search answers', () => {
  it('keeps a well-formed answer as parsed, without copying its results', async () => {
    const body = { success: true, items: [{ id: 'q0', query: 'KFC', results: [wellFormed()] }] };
    const [item] = await search(body);
    expect(item!.results).toBe(body.items[0]!.results);
    expect(item!.results[0]!.merchant?.name).toBe('KFC');
    expect(item!.results[0]!.category.groups.personal_finance).toEqual({ _id: 'grp_1', name: 'Lifestyle' });
  });

  it('copies an answer with malformed parts, leaving those parts and unusable results out', async () => {
    const odd = wellFormed();
    const body = {
      success: true,
      items: [
        {
          id: 'q0',
          query: 'KFC',
          results: [
            {
              ...odd,
              category: { ...odd.category, groups: { ...odd.category.groups, broken: { _id: 1 } } },
              merchant: { _id: 'merchant_1', name: 42 },
            },
            { confidence: 'high' },
          ],
        },
      ],
    };
    const [item] = await search(body);
    expect(item!.results).toEqual([
      {
        confidence: 0.9,
        category: {
          _id: 'cat_1',
          name: 'Fast food',
          groups: { personal_finance: { _id: 'grp_1', name: 'Lifestyle' } },
        },
        merchant: { _id: 'merchant_1', name: undefined, logo: undefined, website: undefined },
      },
    ]);
  });
});
