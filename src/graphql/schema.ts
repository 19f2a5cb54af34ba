import 'reflect-metadata';
import { lexicographicSortSchema, printSchema, type GraphQLSchema } from 'graphql';
import { buildSchema } from 'type-graphql';
import { gateRootFields } from './access-gate.js';
import { AccessResolver } from './access/access.resolver.js';
import { BankConnectionResolver } from './access/bank-connection.resolver.js';
import { DeviceResolver } from './access/device.resolver.js';
import { AccountResolver } from './accounts/account.resolver.js';
import { authChecker } from './authorization.js';
import {
  createEnrichmentResolver,
  resolveEnrichWithCoercedQueries,
  type EnrichmentLimits,
} from './enrichment/enrichment.resolver.js';
import { PaymentResolver } from './payments/payment.resolver.js';
import { EventResolver } from './subscriptions/event.resolver.js';
import { TransactionSyncResolver } from './transactions/transaction-sync.resolver.js';
import { TransactionResolver } from './transactions/transaction.resolver.js';
import { UserResolver } from './user/user.resolver.js';
import { NameVerificationResolver } from './verification/name-verification.resolver.js';
import { HolderNameSource, PartyNameSource } from './verification/name-verification.type.js';

export interface SchemaOptions {
  enrichment: EnrichmentLimits;
}

/**
 * Builds the gateway's executable schema: the one list of resolvers, every root field behind the
 * access gate (multi-factor and a bank connection, see access-gate.ts).
 */
export async function buildGatewaySchema(options: SchemaOptions): Promise<GraphQLSchema> {
  const schema = await buildUngatedSchema(options);
  return gateRootFields(resolveEnrichWithCoercedQueries(schema, options.enrichment));
}

async function buildUngatedSchema(options: SchemaOptions): Promise<GraphQLSchema> {
  return buildSchema({
    resolvers: [
      createEnrichmentResolver(options.enrichment),
      UserResolver,
      AccountResolver,
      TransactionResolver,
      TransactionSyncResolver,
      NameVerificationResolver,
      AccessResolver,
      BankConnectionResolver,
      DeviceResolver,
      PaymentResolver,
      EventResolver,
    ],
    // Every @Authorized field is checked here (money movement: read-only apps, MFA freshness).
    authChecker,
    // Every @Subscription brings its own `subscribe` (the user's channel of our EventLog), but
    // type-graphql refuses to build subscriptions without a pubSub option: give it one that
    // fails loudly if anything ever routes through it by topic.
    pubSub: {
      publish: () => {
        throw new Error('topic-based publishing is not used; append to the event log (src/event-log)');
      },
      subscribe: () => {
        throw new Error('topic-based subscriptions are not used; see userEvents()');
      },
    },
    // Implementations of NameVerificationSource are only reachable through the interface.
    orphanedTypes: [HolderNameSource, PartyNameSource],
    // Inputs are validated explicitly in resolvers, so errors can name the offending list item.
    validate: false,
    emitSchemaFile: false,
  });
}

/** The SDL committed as `schema.graphql`: sorted, so it only changes when the schema does. */
export function printGatewaySchema(schema: GraphQLSchema): string {
  return `${printSchema(lexicographicSortSchema(schema))}\n`;
}
