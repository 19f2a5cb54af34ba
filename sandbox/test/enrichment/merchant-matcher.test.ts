import { describe, expect, it } from 'vitest';
import { buildCategories } from '../../src/data/categories.js';
import { buildConnections } from '../../src/data/connections.js';
import { buildDemoWorld } from '../../src/data/demo-world.js';
import { MERCHANTS } from '../../src/data/merchants.js';
import { createMerchantMatcher, type SearchQuery } from '../../src/enrichment/merchant-matcher.js';

/** Two adjacent letters of the first word swapped: the typo rule's case. */
function swapped(description: string): string {
  const [first, ...rest] = description.split(' ');
  if (!first || first.length < 4) return description;
  const chars = [...first];
  [chars[2], chars[3]] = [chars[3]!, chars[2]!];
  return [chars.join(''), ...rest].join(' ');
}

describe('the sandbox enrichment matcher', () => {
  it('gives the indexed matcher exactly the simple scan\u2019s results on every statement line of the demo world, and variants of them', () => {
    const categories = buildCategories();
    const connections = buildConnections('http://sandbox.invalid');
    const known = new Set(connections.map((connection) => connection._id));
    const world = buildDemoWorld(Date.UTC(2026, 0, 31), connections);
    const indexed = createMerchantMatcher(categories, 'http://sandbox.invalid', known);
    const simple = createMerchantMatcher(categories, 'http://sandbox.invalid', known, { indexed: false });

    const queries: SearchQuery[] = world.transactions.map((row) => ({
      description: row.description,
      amount: row.amount,
      direction: row.amount > 0 ? 'CREDIT' : 'DEBIT',
      connectionId: row._connection,
    }));
    for (const merchant of MERCHANTS) {
      queries.push(
        { description: merchant.sample },
        { description: swapped(merchant.sample) },
        { description: `${merchant.sample} USD` },
        { description: merchant.sample.replaceAll(' ', '') },
        { description: `PAYMENT TO ${merchant.sample}` },
      );
    }
    expect(queries.length).toBeGreaterThan(500);
    let matched = 0;
    for (const query of queries) {
      const expected = simple.search(query);
      expect(indexed.search(query), query.description).toEqual(expected);
      if (expected.length > 0) matched += 1;
    }
    // The comparison means something only if most lines match a merchant or category.
    expect(matched / queries.length).toBeGreaterThan(0.7);
  });
});
