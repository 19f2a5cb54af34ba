import type { GraphQLResolveInfo } from 'graphql';
import { Arg, Ctx, FieldResolver, GraphQLISODateTime, ID, Info, Int, Query, Resolver, Root } from 'type-graphql';
import type { TransactionFilter } from '../../upstream/core-client.js';
import type { GatewayContext } from '../context.js';
import { EnrichmentResult } from '../enrichment/enrichment.type.js';
import { ErrorCode, gatewayError, requireCountInRange } from '../errors.js';
import { enrichmentOf, selectsRowEnrichment, settleEnrichments, type SettlingRow } from './row-enrichment.js';
import { decodeCursor } from './transaction-cursor.js';
import { pagedRows } from './transaction-pager.js';
import { toPendingTransaction, toTransaction } from './transaction.mapper.js';
import { PendingTransaction, Transaction, TransactionPage } from './transaction.type.js';

export const MAX_TRANSACTIONS_PER_PAGE = 100;

/**
 * An edge whose cursor is encoded only when read. A class getter, not one on each edge object: V8
 * keeps an accessor defined on an object in the old generation, and the page it reached then
 * outlived every young collection.
 */
class TransactionEdgeValue {
  constructor(
    readonly node: Transaction,
    private readonly position: { readonly cursor: string },
  ) {}

  get cursor(): string {
    return this.position.cursor;
  }
}

@Resolver(() => Transaction)
export class TransactionResolver {
  @Query(() => TransactionPage, {
    description:
      'Settled transactions, newest first, across all accounts or one. `start` is exclusive and `end` inclusive (UTC).',
  })
  async transactions(
    @Ctx() context: GatewayContext,
    @Info() info: GraphQLResolveInfo,
    @Arg('accountId', () => ID, { nullable: true }) accountId?: string,
    @Arg('start', () => GraphQLISODateTime, { nullable: true, description: 'Only transactions after this instant.' })
    start?: Date,
    @Arg('end', () => GraphQLISODateTime, {
      nullable: true,
      description: 'Only transactions at or before this instant.',
    })
    end?: Date,
    @Arg('first', () => Int, { defaultValue: 50, description: `Page size, 1 to ${MAX_TRANSACTIONS_PER_PAGE}.` })
    first = 50,
    @Arg('after', () => String, {
      nullable: true,
      description: 'An `endCursor` or edge cursor from a previous page of the same query.',
    })
    after?: string,
  ): Promise<TransactionPage> {
    requireCountInRange('first', first, MAX_TRANSACTIONS_PER_PAGE);
    if (start && end && start >= end)
      throw gatewayError(ErrorCode.BAD_USER_INPUT, 'start must be before end.', { argumentName: 'start' });
    const filter: TransactionFilter = {
      accountId: accountId ?? undefined,
      start: start?.toISOString(),
      end: end?.toISOString(),
    };
    const position = after ? decodeCursor(after, filter) : undefined;
    if (after && !position)
      throw gatewayError(ErrorCode.BAD_USER_INPUT, 'after is not a cursor from this query (same account and dates).', {
        argumentName: 'after',
      });

    const slice = await context.loaders.transactionPage.load({ filter, after: position, first });
    // Cursors stay lazy: one is encoded only if the client asks for that edge's cursor.
    const edges = pagedRows(slice.rows, filter).map(
      (entry) => new TransactionEdgeValue(toTransaction(entry.row), entry),
    );
    const nodes = edges.map((edge) => edge.node);
    if (selectsRowEnrichment(info)) await settleEnrichments(nodes, context);
    return {
      edges,
      nodes,
      pageInfo: { hasNextPage: slice.hasNextPage, endCursor: edges.at(-1)?.cursor ?? after ?? undefined },
    };
  }

  @Query(() => [PendingTransaction], {
    description: 'Pending transactions, across all accounts or one. They have no ids and change until they settle.',
  })
  async pendingTransactions(
    @Ctx() context: GatewayContext,
    @Arg('accountId', () => ID, { nullable: true }) accountId?: string,
  ): Promise<PendingTransaction[]> {
    const rows = await context.userClient.listPendingTransactions(accountId ?? undefined);
    return rows.map(toPendingTransaction);
  }

  @FieldResolver(() => EnrichmentResult, {
    nullable: true,
    description:
      'Merchant and category for this transaction. All transactions in one request are enriched in one batched search.',
  })
  enrichment(
    @Root() transaction: SettlingRow,
    @Ctx() context: GatewayContext,
  ): EnrichmentResult | Promise<EnrichmentResult> {
    return enrichmentOf(transaction, context);
  }
}
