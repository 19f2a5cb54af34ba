import type { GraphQLFieldResolver, GraphQLSchema } from 'graphql';
import { Arg, Ctx, Query, Resolver } from 'type-graphql';
import type { GatewayContext } from '../context.js';
import { enrich, type EnrichmentLimits } from './enrich.js';
import { EnrichmentQueryInput } from './enrichment.input.js';
import { EnrichmentResult } from './enrichment.type.js';

export type { EnrichmentLimits } from './enrich.js';

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
    enrich(
      @Arg('queries', () => [EnrichmentQueryInput]) queries: EnrichmentQueryInput[],
      @Ctx() context: GatewayContext,
    ): Promise<EnrichmentResult[]> {
      return enrich(queries, context, limits);
    }
  }
  return EnrichmentResolver;
}

/**
 * Has graphql-js call `enrich` with the queries as it coerced them, in place of type-graphql's
 * resolver, which first copies every query into an EnrichmentQueryInput: for each, its own walk of
 * the input type's fields and three new objects, 3.5% of `enrich(1000)`'s CPU in a profile, for
 * nothing `enrich` reads. The field itself (arguments, type, descriptions) is still the class's.
 * type-graphql's resolver would also run the field's @Authorized and middleware; it has neither,
 * and test/graphql/simple-resolvers.test.ts fails if it gains one.
 */
export function resolveEnrichWithCoercedQueries(schema: GraphQLSchema, limits: EnrichmentLimits): GraphQLSchema {
  const field = schema.getQueryType()!.getFields().enrich!;
  const resolve: GraphQLFieldResolver<unknown, GatewayContext, { queries: EnrichmentQueryInput[] }> = (
    _source,
    args,
    context,
  ) => enrich(args.queries, context, limits);
  field.resolve = resolve as GraphQLFieldResolver<unknown, unknown>;
  return schema;
}
