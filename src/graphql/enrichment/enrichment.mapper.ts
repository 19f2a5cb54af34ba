import type { PlatformEnrichmentResult } from '../../upstream/platform-types.js';
import type { Category, EnrichmentMatch, EnrichmentResult, Merchant } from './enrichment.type.js';

/** Platform results (snake_case, `_id`, groups as a map) to the schema's shapes, best first. */
export function toEnrichmentResult(
  id: string | undefined,
  description: string,
  results: readonly PlatformEnrichmentResult[],
): EnrichmentResult {
  return new MappedEnrichment(id, description, results);
}

/**
 * Maps only what the query reads: most read `merchant { name }` of a thousand results, and
 * building every match, category and group list up front was most of the mapping's cost. Class
 * getters (graphql-js reads fields as properties), not accessors put on each object: V8 keeps an
 * object with its own accessors in the old generation.
 */
class MappedEnrichment implements EnrichmentResult {
  constructor(
    readonly id: string | undefined,
    readonly description: string,
    private readonly results: readonly PlatformEnrichmentResult[],
  ) {}

  /** The highest confidence; the platform's first among equals, as in `matches`. */
  private get best(): PlatformEnrichmentResult | undefined {
    let best: PlatformEnrichmentResult | undefined;
    for (const result of this.results) if (!best || result.confidence > best.confidence) best = result;
    return best;
  }

  get confidence(): number | undefined {
    return this.best?.confidence;
  }

  get category(): Category | undefined {
    const best = this.best;
    return best && toCategory(best.category);
  }

  get merchant(): Merchant | undefined {
    return toMerchant(this.best?.merchant);
  }

  get matches(): EnrichmentMatch[] {
    // A stable sort: equal confidences keep the platform's order.
    return this.results.map(toMatch).sort((a, b) => b.confidence - a.confidence);
  }
}

function toMatch(result: PlatformEnrichmentResult): EnrichmentMatch {
  return {
    confidence: result.confidence,
    category: toCategory(result.category),
    merchant: toMerchant(result.merchant),
  };
}

function toCategory(category: PlatformEnrichmentResult['category']): Category {
  const groups = Object.entries(category.groups).map(([grouping, group]) => ({
    grouping,
    id: group._id,
    name: group.name,
  }));
  return {
    id: category._id,
    name: category.name,
    groups,
    personalFinance: groups.find((group) => group.grouping === 'personal_finance'),
  };
}

function toMerchant(merchant: PlatformEnrichmentResult['merchant']): Merchant | undefined {
  return merchant
    ? { id: merchant._id, name: merchant.name, logo: merchant.logo, website: merchant.website }
    : undefined;
}
