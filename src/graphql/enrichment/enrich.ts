import type { EnrichmentLookup } from '../../loaders/enrichment-lookup.js';
import type { GatewayContext } from '../context.js';
import { findInvalidQueries, invalidQueriesError, tooManyQueriesError } from './enrichment-validation.js';
import type { EnrichmentQueryInput } from './enrichment.input.js';
import { toEnrichmentResult } from './enrichment.mapper.js';
import type { EnrichmentResult } from './enrichment.type.js';

/** Limits injected at composition time; the resolver class itself stays a stateless singleton. */
export interface EnrichmentLimits {
  maxQueriesPerRequest: number;
}

/** `Query.enrich`: one result per query, in order, every lookup in the request's batch. */
export async function enrich(
  queries: readonly EnrichmentQueryInput[],
  context: GatewayContext,
  limits: EnrichmentLimits,
): Promise<EnrichmentResult[]> {
  // Counted across the whole request (several fields, Transaction.enrichment), before any work.
  if (!context.loaders.enrichment.reserve(queries.length))
    throw tooManyQueriesError(queries.length, limits.maxQueriesPerRequest);
  const problems = findInvalidQueries(queries);
  if (problems.length > 0) throw invalidQueriesError(problems);

  // All lookups join the request's batch together, before the first await.
  const results = await context.loaders.enrichment.loadAll(queries.map(toLookup));
  return queries.map((query, index) => toEnrichmentResult(query.id ?? undefined, query.description, results[index]!));
}

/**
 * The lookup a query stands for. Usually the query itself (its `id` goes unread): a new object
 * only when a field is null or the deprecated `connectionId` is used, which the lookup must not carry.
 */
function toLookup(query: EnrichmentQueryInput): EnrichmentLookup {
  if (query.connectionId === undefined && query.bankId !== null && query.amount !== null && query.direction !== null)
    return query;
  return {
    description: query.description,
    bankId: query.bankId ?? query.connectionId ?? undefined,
    amount: query.amount ?? undefined,
    direction: query.direction ?? undefined,
  };
}
