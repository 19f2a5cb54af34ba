import 'reflect-metadata';
import { lexicographicSortSchema, printSchema, type GraphQLSchema } from 'graphql';
import { buildSchema } from 'type-graphql';
import { createEnrichmentResolver, type EnrichmentLimits } from './enrichment/enrichment.resolver.js';
import { UserResolver } from './user/user.resolver.js';

export interface SchemaOptions {
  enrichment: EnrichmentLimits;
}

/** Builds the gateway's executable schema: the one list of resolvers. */
export async function buildGatewaySchema(options: SchemaOptions): Promise<GraphQLSchema> {
  return buildSchema({
    resolvers: [createEnrichmentResolver(options.enrichment), UserResolver],
    // Inputs are validated explicitly in resolvers, so errors can name the offending list item.
    validate: false,
    emitSchemaFile: false,
  });
}

/** The SDL committed as `schema.graphql`: sorted, so it only changes when the schema does. */
export function printGatewaySchema(schema: GraphQLSchema): string {
  return `${printSchema(lexicographicSortSchema(schema))}\n`;
}
