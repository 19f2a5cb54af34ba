import type { PlatformTransaction } from '../upstream/platform-types.js';
import { LedgerBusyError } from '../user-data/kept-ledger.js';
import type { UserKeptData } from '../user-data/kept-reads.js';
import { VersionsMixedError, type SyncAnswer } from '../user-data/kept-sync.js';
import { decodeSyncCursor, SyncCursorError } from '../user-data/sync-cursor.js';

/** The user-data store is off (USER_DATA_STORE=off): there is no ledger to sync from. */
export class SyncUnavailableError extends Error {
  constructor() {
    super('This gateway keeps no user data (USER_DATA_STORE=off), so it cannot sync: read pages with `transactions`.');
    this.name = 'SyncUnavailableError';
  }
}

/**
 * Sync cannot answer now, and will shortly: `BUSY`, the user's transactions kept changing while it
 * read them (or did not fit in what is kept for one user); `VERSIONS_MIXED`, a rolling deploy is
 * under way (an earlier version shares the store). Ask again after `retryAfterSeconds`.
 */
export class SyncNotNowError extends Error {
  readonly reason: 'BUSY' | 'VERSIONS_MIXED';
  readonly retryAfterSeconds: number;

  constructor(message: string, refusal: Pick<SyncNotNowError, 'reason' | 'retryAfterSeconds'>) {
    super(message);
    this.name = 'SyncNotNowError';
    ({ reason: this.reason, retryAfterSeconds: this.retryAfterSeconds } = refusal);
  }
}

/** How soon to ask again while a rolling deploy is under way: the census looks once a second, a deploy takes minutes. */
const DEPLOY_RETRY_SECONDS = 30;

/** A sync cursor that cannot be continued from (malformed, or its changes are no longer kept): sync from the start. */
export class SyncCursorExpiredError extends Error {
  constructor(
    message: string,
    readonly reason: 'MALFORMED' | 'EXPIRED',
  ) {
    super(message);
    this.name = 'SyncCursorExpiredError';
  }
}

/** One answer of a sync: rows to add and to replace (by id), ids to remove, and where to continue. */
export interface SyncPage {
  added: PlatformTransaction[];
  modified: PlatformTransaction[];
  removed: Array<{ id: string; accountId: string }>;
  nextCursor: string;
  hasMore: boolean;
  /** The window synced: transactions dated after this instant (null: all history). */
  start: Date | null;
}

export interface TransactionsSync {
  /** What changed since `cursor` (everything in the window when there is none), `count` rows at most. */
  since(cursor: string | undefined, count: number, start: Date | undefined): Promise<SyncPage>;
  /** Throws SyncCursorExpiredError for a cursor that cannot be continued from. */
  check(cursor: string): void;
}

function positionOf(cursor: string) {
  try {
    return decodeSyncCursor(cursor);
  } catch (error) {
    return refused(error);
  }
}

/** Where a sync cursor stands: the ledger's epoch, and the change log position it has reached. */
export function standingOf(cursor: string): { epoch: string; reached: number } {
  const position = positionOf(cursor);
  return { epoch: position.e, reached: position.h };
}

/** The store's refusals as the loader's. */
function refused(error: unknown): never {
  if (error instanceof SyncCursorError) throw new SyncCursorExpiredError(error.message, error.reason);
  if (error instanceof LedgerBusyError)
    throw new SyncNotNowError(
      'The user\u2019s transactions kept changing while they were read: ask again shortly, with the same cursor.',
      { reason: 'BUSY', retryAfterSeconds: 1 },
    );
  if (error instanceof VersionsMixedError)
    throw new SyncNotNowError(error.message, { reason: 'VERSIONS_MIXED', retryAfterSeconds: DEPLOY_RETRY_SECONDS });
  throw error;
}

const asPage = (answer: SyncAnswer): SyncPage => ({
  ...(answer as unknown as Omit<SyncPage, 'start'>),
  start: answer.start === null ? null : new Date(answer.start),
});

/** Sync over the user's kept data, or refusals when there is none. */
export function syncOf(kept: UserKeptData | undefined): TransactionsSync {
  const store = () => {
    if (!kept) throw new SyncUnavailableError();
    return kept;
  };
  return {
    async since(cursor, count, start) {
      return asPage(await store().sync(cursor, count, start?.getTime()).catch(refused));
    },
    check(cursor) {
      store();
      positionOf(cursor);
    },
  };
}
