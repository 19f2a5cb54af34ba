import type { PlatformEnrichmentResult } from '../../upstream/platform-types.js';
import type { EnrichmentMatch, EnrichmentResult } from './enrichment.types.js';

/** Platform results (snake_case, `_id`, groups as a map) to the schema's shapes, best first. */
export function toEnrichmentResult(
  id: string | undefined,
  description: string,
  results: readonly PlatformEnrichmentResult[],
): EnrichmentResult {
  const matches = results.map(toMatch).sort((a, b) => b.confidence - a.confidence);
  const best = matches[0];
  return {
    id,
    description,
    confidence: best?.confidence,
    category: best?.category,
    merchant: best?.merchant,
    matches,
  };
}

function toMatch(result: PlatformEnrichmentResult): EnrichmentMatch {
  const groups = Object.entries(result.category.groups).map(([grouping, group]) => ({
    grouping,
    id: group._id,
    name: group.name,
  }));
  const merchant = result.merchant;
  return {
    confidence: result.confidence,
    category: {
      id: result.category._id,
      name: result.category.name,
      groups,
      personalFinance: groups.find((group) => group.grouping === 'personal_finance'),
    },
    merchant: merchant
      ? { id: merchant._id, name: merchant.name, logo: merchant.logo, website: merchant.website }
      : undefined,
  };
}
