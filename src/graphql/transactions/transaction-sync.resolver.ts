import type { GraphQLResolveInfo } from 'graphql';
import { Arg, Ctx, GraphQLISODateTime, Info, Int, Query, Resolver, Root, Subscription } from 'type-graphql';
import {
  standingOf,
  SyncCursorExpiredError,
  SyncUnavailableError,
  type SyncPage,
} from '../../loaders/transaction-sync.js';
import type { GatewayContext, SubscriptionContext } from '../context.js';
import { ErrorCode, gatewayError } from '../errors.js';
import { syncEvents, type SyncRoot } from '../subscriptions/sync-events.js';
import { selectsRowEnrichment, settleEnrichments } from './row-enrichment.js';
import { TransactionsSyncPage } from './transaction-sync.type.js';
import { toTransaction } from './transaction.mapper.js';

export const MAX_SYNC_COUNT = 500;

const SYNC_ROWS = [['added'], ['modified']] as const;

/** A sync's refusals as the codes a client branches on. */
function coded(error: unknown): never {
  if (error instanceof SyncCursorExpiredError)
    throw gatewayError(ErrorCode.SYNC_CURSOR_EXPIRED, error.message, { reason: error.reason });
  if (error instanceof SyncUnavailableError) throw gatewayError(ErrorCode.SYNC_UNAVAILABLE, error.message);
  throw error;
}

async function toPage(
  page: Omit<SyncPage, 'hasMore'> & { hasMore?: boolean },
  context: GatewayContext,
  info: GraphQLResolveInfo,
): Promise<TransactionsSyncPage> {
  const added = page.added.map(toTransaction);
  const modified = page.modified.map(toTransaction);
  if (selectsRowEnrichment(info, SYNC_ROWS)) await settleEnrichments([...added, ...modified], context);
  return { added, modified, removed: page.removed, nextCursor: page.nextCursor, hasMore: page.hasMore ?? false };
}

/**
 * Transaction sync for apps that keep their own copy (Plaid's `/transactions/sync`): a query that
 * answers what changed since a cursor, and a subscription that pushes the same as it happens.
 */
@Resolver()
export class TransactionSyncResolver {
  @Query(() => TransactionsSyncPage, {
    description:
      'What changed in the user\u2019s settled transactions since `cursor`: without one, every settled transaction (after `start`) as `added`, page by page. Keep `nextCursor`; while `hasMore`, ask again at once. A cursor that cannot be continued from: SYNC_CURSOR_EXPIRED (sync from the start).',
  })
  async transactionsSync(
    @Ctx() context: GatewayContext,
    @Info() info: GraphQLResolveInfo,
    @Arg('cursor', () => String, {
      nullable: true,
      description: 'A `nextCursor` from an earlier answer; none on the first sync.',
    })
    cursor?: string,
    @Arg('count', () => Int, {
      defaultValue: 100,
      description: `Most transactions in one answer, 1 to ${MAX_SYNC_COUNT}.`,
    })
    count = 100,
    @Arg('start', () => GraphQLISODateTime, {
      nullable: true,
      description: 'First sync only: the window starts after this instant (the cursor keeps it). Default: all history.',
    })
    start?: Date,
  ): Promise<TransactionsSyncPage> {
    if (count < 1 || count > MAX_SYNC_COUNT)
      throw gatewayError(ErrorCode.BAD_USER_INPUT, `count must be from 1 to ${MAX_SYNC_COUNT}.`, {
        argumentName: 'count',
      });
    const page = await context.loaders.sync.since(cursor ?? undefined, count, start ?? undefined).catch(coded);
    return toPage(page, context, info);
  }

  @Subscription(() => TransactionsSyncPage, {
    name: 'transactionsSync',
    description:
      'Pushes what changed since `cursor` (catching up first, with `hasMore` until it has), then each change as it is made, each with the cursor to resume from. On SYNC_CURSOR_EXPIRED, sync from the start and subscribe again.',
    subscribe: ({ context, args }) => syncEvents(context as SubscriptionContext, (args as { cursor: string }).cursor),
  })
  async transactionsSyncEvents(
    @Root() root: SyncRoot,
    @Ctx() context: GatewayContext,
    @Info() info: GraphQLResolveInfo,
    @Arg('cursor', () => String, { description: 'A `nextCursor` from `Query.transactionsSync`.' }) cursor: string,
  ): Promise<TransactionsSyncPage> {
    if ('catchUp' in root) {
      const state = root.catchUp;
      try {
        if (state.expired)
          coded(
            new SyncCursorExpiredError('The kept transactions were started again: sync from the start.', 'EXPIRED'),
          );
        const page = await context.loaders.sync.since(state.cursor, 100, undefined).catch(coded);
        state.cursor = page.nextCursor;
        state.more = page.hasMore;
        ({ epoch: state.epoch, reached: state.reached } = standingOf(page.nextCursor));
        return await toPage(page, context, info);
      } catch (error) {
        state.ended = true; // its cursor cannot be continued from: the subscription ends after this
        throw error;
      }
    }
    const page = await context.loaders.sync.stretch(root.sync!, cursor).catch(coded);
    return toPage(page, context, info);
  }
}
