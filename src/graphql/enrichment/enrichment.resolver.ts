import { Arg, Ctx, Query, Resolver } from 'type-graphql';
import type { GatewayContext } from '../context.js';
import { findInvalidQueries, invalidQueriesError, tooManyQueriesError } from './enrichment-validation.js';
import { EnrichmentQueryInput } from './enrichment.input.js';
import { toEnrichmentResult } from './enrichment.mapper.js';
import { EnrichmentResult } from './enrichment.type.js';

/** Limits injected at composition time; the resolver class itself stays a stateless singleton. */
export interface EnrichmentLimits {
  maxQueriesPerRequest: number;
}

export function createEnrichmentResolver(limits: EnrichmentLimits) {
  @Resolver()
  class EnrichmentResolver {
    @Query(() => [EnrichmentResult], {
      // Nullable so that an upstream failure here nulls this field only, not the whole response.
      nullable: true,
      description:
        'Merchant and category matches for raw transaction descriptions, one result per query in the same order. ' +
        'All lookups in one GraphQL request are batched into as few upstream searches as possible.',
    })
    async enrich(
      @Arg('queries', () => [EnrichmentQueryInput]) queries: EnrichmentQueryInput[],
      @Ctx() context: GatewayContext,
    ): Promise<EnrichmentResult[]> {
      // Counted across the whole request (several fields, Transaction.enrichment), before any work.
      if (!context.loaders.enrichment.reserve(queries.length))
        throw tooManyQueriesError(queries.length, limits.maxQueriesPerRequest);
      const problems = findInvalidQueries(queries);
      if (problems.length > 0) throw invalidQueriesError(problems);

      // All lookups join the request's batch together, before the first await.
      const results = await context.loaders.enrichment.loadAll(
        queries.map((query) => ({
          description: query.description,
          bankId: query.bankId ?? query.connectionId ?? undefined,
          amount: query.amount ?? undefined,
          direction: query.direction ?? undefined,
        })),
      );
      return queries.map((query, index) =>
        toEnrichmentResult(query.id ?? undefined, query.description, results[index]!),
      );
    }
  }
  return EnrichmentResolver;
}
