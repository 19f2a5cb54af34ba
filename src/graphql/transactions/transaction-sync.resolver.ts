import type { GraphQLResolveInfo } from 'graphql';
import { Arg, Ctx, GraphQLISODateTime, Info, Int, Query, Resolver, Root, Subscription } from 'type-graphql';
import {
  standingOf,
  SyncCursorExpiredError,
  SyncNotNowError,
  SyncUnavailableError,
  type SyncPage,
} from '../../loaders/transaction-sync.js';
import type { GatewayContext, SubscriptionContext } from '../context.js';
import { ErrorCode, gatewayError, requireCountInRange } from '../errors.js';
import { syncEvents, type SyncRoot } from '../subscriptions/sync-events.js';
import { selectsRowEnrichment, settleEnrichments } from './row-enrichment.js';
import { TransactionsSyncPage } from './transaction-sync.type.js';
import { toTransaction } from './transaction.mapper.js';

export const MAX_SYNC_COUNT = 500;

/** Most transactions in one push of a sync subscription (more follows in the next push at once). */
const SYNC_PUSH_COUNT = 100;

const SYNC_ROWS = [['added'], ['modified']] as const;

/** A sync's refusals as the codes a client branches on. */
function coded(error: unknown): never {
  if (error instanceof SyncCursorExpiredError)
    throw gatewayError(ErrorCode.SYNC_CURSOR_EXPIRED, error.message, { reason: error.reason });
  if (error instanceof SyncUnavailableError) throw gatewayError(ErrorCode.SYNC_UNAVAILABLE, error.message);
  if (error instanceof SyncNotNowError)
    throw gatewayError(ErrorCode.SYNC_UNAVAILABLE, error.message, {
      reason: error.reason,
      retryAfterSeconds: error.retryAfterSeconds,
    });
  throw error;
}

async function toPage(
  page: SyncPage,
  context: GatewayContext,
  info: GraphQLResolveInfo,
): Promise<TransactionsSyncPage> {
  const added = page.added.map(toTransaction);
  const modified = page.modified.map(toTransaction);
  if (selectsRowEnrichment(info, SYNC_ROWS)) await settleEnrichments([...added, ...modified], context);
  const { removed, nextCursor, hasMore, start } = page;
  return { added, modified, removed, nextCursor, hasMore, start };
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
    requireCountInRange('count', count, MAX_SYNC_COUNT);
    const page = await context.loaders.sync.since(cursor ?? undefined, count, start ?? undefined).catch(coded);
    return toPage(page, context, info);
  }

  @Subscription(() => TransactionsSyncPage, {
    name: 'transactionsSync',
    description:
      'Pushes what changed since `cursor` (catching up first, with `hasMore` until it has), then each change as it is made, each with the cursor to resume from. An error ends it: on SYNC_CURSOR_EXPIRED, sync from the start and subscribe again; on any other, subscribe again with the last `nextCursor`.',
    subscribe: ({ context, args }) => syncEvents(context as SubscriptionContext, (args as { cursor: string }).cursor),
  })
  async transactionsSyncEvents(
    @Root() root: SyncRoot,
    @Ctx() context: GatewayContext,
    @Info() info: GraphQLResolveInfo,
    @Arg('cursor', () => String, { description: 'A `nextCursor` from `Query.transactionsSync`.' }) _cursor: string,
  ): Promise<TransactionsSyncPage> {
    const { progress } = root;
    try {
      const page = await context.loaders.sync.since(progress.cursor, SYNC_PUSH_COUNT, undefined).catch(coded);
      // Moved on only once the push is made: a push that fails is made again from the same cursor.
      progress.cursor = page.nextCursor;
      progress.more = page.hasMore;
      ({ epoch: progress.epoch, reached: progress.reached } = standingOf(page.nextCursor));
      return await toPage(page, context, info);
    } catch (error) {
      // The subscription ends after this error; its last cursor is where the app subscribes again
      // (after SYNC_CURSOR_EXPIRED, from the start).
      progress.ended = true;
      throw error;
    }
  }
}
