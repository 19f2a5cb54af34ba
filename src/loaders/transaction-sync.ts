import type { PlatformTransaction } from '../upstream/platform-types.js';
import type { UserKeptData } from '../user-data/kept-reads.js';
import type { SyncAnswer } from '../user-data/kept-sync.js';
import { decodeSyncCursor, SyncCursorError } from '../user-data/sync-cursor.js';

/** The user-data store is off (USER_DATA_STORE=off): there is no ledger to sync from. */
export class SyncUnavailableError extends Error {
  constructor() {
    super('This gateway keeps no user data (USER_DATA_STORE=off), so it cannot sync: read pages with `transactions`.');
    this.name = 'SyncUnavailableError';
  }
}

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
    return expired(error);
  }
}

/** Where a sync cursor stands: the ledger's epoch, and the change log position it has reached. */
export function standingOf(cursor: string): { epoch: string; reached: number } {
  const position = positionOf(cursor);
  return { epoch: position.e, reached: position.h };
}

function expired(error: unknown): never {
  if (error instanceof SyncCursorError) throw new SyncCursorExpiredError(error.message, error.reason);
  throw error;
}

const asPage = <T extends Partial<SyncAnswer>>(answer: T) => answer as unknown as SyncPage;

/** Sync over the user's kept data, or refusals when there is none. */
export function syncOf(kept: UserKeptData | undefined): TransactionsSync {
  const store = () => {
    if (!kept) throw new SyncUnavailableError();
    return kept;
  };
  return {
    async since(cursor, count, start) {
      return asPage(await store().sync(cursor, count, start?.getTime()).catch(expired));
    },
    check(cursor) {
      store();
      positionOf(cursor);
    },
  };
}
