import { describe, expect, it } from 'vitest';
import { createLogger } from '@open-finance-gateway/common/logger';
import { buildCategories } from '../../src/data/categories.js';
import { buildConnections } from '../../src/data/connections.js';
import { createMerchantMatcher } from '../../src/enrichment/merchant-matcher.js';
import { createSandbox } from '../../src/sandbox.js';
import { track } from '../support/leftovers.js';

describe('the enrichment search answer', () => {
  it('is exactly the JSON of the matcher results, whatever is reused between queries', async () => {
    const sandbox = createSandbox({ logger: createLogger({ level: 'silent' }), headerPrefix: 'X-Service' });
    await sandbox.start();
    track(() => sandbox.stop());
    const connections = buildConnections(sandbox.enrichmentUrl);
    const queries = [
      { id: 'a"1', description: 'COUNTDOWN AUCKLAND', amount: -20 },
      { description: 'COUNTDOWN AUCKLAND', amount: -20 }, // the same line again
      { description: 'COUNTDOWN AUCKLAND', amount: 20 }, // a refund: another answer
      { id: 'b', description: 'NETFLIX.COM USD', _connection: connections[0]!._id },
      { description: 'PARKING WELLINGTON \\u00e9 "quoted"' },
      { description: 'nothing known here' },
    ];
    const response = await fetch(`${sandbox.enrichmentUrl}/v1/search`, {
      method: 'POST',
      headers: { authorization: `Bearer ${sandbox.credentials.enrichmentKey}`, 'content-type': 'application/json' },
      body: JSON.stringify(queries),
    });
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toMatch(/^application\/json/);

    const matcher = createMerchantMatcher(
      buildCategories(),
      sandbox.enrichmentUrl,
      new Set(connections.map((c) => c._id)),
    );
    const expected = {
      success: true,
      items: queries.map(({ id, description, amount, _connection }) => ({
        ...(id !== undefined ? { id } : {}),
        query: description,
        results: matcher.search({ description, amount, connectionId: _connection }),
      })),
    };
    expect(expected.items.some((item) => item.results.some((result) => result.merchant))).toBe(true);
    expect(await response.text()).toBe(JSON.stringify(expected));
  });
});
