import { LedgerBusyError, type KeptLedger } from './kept-ledger.js';
import { readWhole, type PlatformReads } from './kept-platform.js';
import type { LedgerAccess, LedgerSnapshot } from './ledger-access.js';
import { coverageOf } from './ledger-meta.js';
import { LedgerMovedError, selectPage } from './ledger-pages.js';
import { coversDownTo, deeper, keyOf, windowBound, type KeptRow, type RowKey } from './ledger-rows.js';
import { decodeSyncCursor, encodeSyncCursor, SyncCursorError, type SyncPosition } from './sync-cursor.js';
import { netRows, readLogStretch } from './sync-log.js';
import type { KeptDataTrust, UserDataStore } from './user-data-store.js';

/** What a sync answers: the rows to add or replace, the ids to remove, where to continue. */
export interface SyncAnswer {
  added: KeptRow[];
  modified: KeptRow[];
  removed: Array<{ id: string; accountId: string }>;
  nextCursor: string;
  hasMore: boolean;
  /**
   * The window synced: rows dated after this instant (ms; null: all history). Later than the start
   * asked for when the user's history is more than is kept for one user, or than one read reaches.
   */
  start: number | null;
}

/**
 * An instance of an earlier version shares the store: its acknowledgements append nothing to the
 * change log, so every sync would have to read the whole window again first. Sync is refused until
 * the deploy completes (then each user's ledger is reconciled once).
 */
export class VersionsMixedError extends Error {
  constructor() {
    super(
      'The gateway is being deployed (an earlier version shares its store): sync again shortly, with the same cursor.',
    );
    this.name = 'VersionsMixedError';
  }
}

/** Whole reads of the window one sync may make: a second only when a change raced the first's write. */
const MAX_WHOLE_READS = 2;

/** The ledger not yet ready to sync from: reconciled, or read for the window (which may have narrowed). */
type NotReady = { again: 'reconciled' } | { again: 'read'; window: number | undefined };

/**
 * Plaid-style sync over the ledger. Without a cursor, the ledger is read whole for the window and
 * its rows walked as `added`, page by page (each cursor a row's key: rows arriving meanwhile move
 * nothing); the change log's position when the walk began is carried along, and once the walk ends
 * the changes since then follow. Changes are net per id (see netChanges). A window larger than the
 * user may keep is synced from the oldest row kept on (the answer's `start` says from when).
 */
export class KeptSync {
  constructor(
    private readonly store: UserDataStore,
    private readonly access: LedgerAccess,
    private readonly ledger: KeptLedger,
  ) {}

  async sync(
    userId: string,
    platform: PlatformReads,
    cursor: string | undefined,
    count: number,
    start: number | undefined,
  ): Promise<SyncAnswer> {
    const position = cursor === undefined ? undefined : decodeSyncCursor(cursor);
    let window = position ? (position.s ?? undefined) : start;
    const trust = await this.store.trust();
    if (trust.mixed) throw new VersionsMixedError();
    let reconciled = false;
    let reads = 0;
    for (let attempt = 0; attempt < 6; attempt += 1) {
      try {
        const at = await this.ready(userId, platform, { window, trust }, position === undefined, reconciled, reads);
        if ('again' in at) {
          if (at.again === 'reconciled') reconciled = true;
          else ({ window } = at);
          reads += at.again === 'read' ? 1 : 0;
          continue;
        }
        const epoch = at.meta!.epoch;
        if (position && position.e !== epoch) throw new SyncCursorError('EXPIRED');
        if (!position) {
          const { head } = await this.store.readLog(userId, 0, 0);
          return await this.walk(userId, at, { e: epoch, s: window ?? null, h: head }, count);
        }
        if (position.k) return await this.walk(userId, at, position, count);
        return await this.changes(userId, at, position, count);
      } catch (error) {
        if (!(error instanceof LedgerMovedError)) throw error;
      }
    }
    throw new LedgerBusyError();
  }

  /**
   * The ledger ready to sync from: covering every account down to the window, marked as synced
   * there (reconciliation keeps it so), and reconciled if older than the maximum age; or what was
   * done to make it so (read it again after).
   */
  private async ready(
    userId: string,
    platform: PlatformReads,
    { window, trust }: { window: number | undefined; trust: KeptDataTrust },
    starting: boolean,
    reconciled: boolean,
    reads: number,
  ): Promise<LedgerSnapshot | NotReady> {
    const at = await this.access.snapshot(userId, { head: 0 });
    if (!starting && !at.meta) throw new SyncCursorError('EXPIRED');
    // Old, or kept before an earlier version last shared the store: read again, once per sync.
    if (!reconciled && at.meta && this.ledger.isOld(at.meta, trust)) {
      await this.ledger.reconcile(userId, platform, at);
      return { again: 'reconciled' };
    }
    const bound = at.meta && coverageOf(at.meta, undefined);
    const marked = at.meta?.syncFrom !== undefined && coversDownTo(at.meta.syncFrom, window);
    if (at.meta && bound !== undefined && coversDownTo(bound, window) && marked) return at;
    if (!starting) throw new SyncCursorError('EXPIRED'); // the window is no longer kept current
    return { again: 'read', window: await this.readWindow(userId, platform, at, window, reads) };
  }

  /**
   * Reads the window whole into the ledger (once per sync, twice if a change raced the first write)
   * and marks it synced; returns the window as kept: past the user's cap (or the platform's page
   * limit) it starts at the oldest row kept.
   */
  private async readWindow(
    userId: string,
    platform: PlatformReads,
    at: LedgerSnapshot,
    window: number | undefined,
    reads: number,
  ): Promise<number | undefined> {
    if (reads >= MAX_WHOLE_READS) throw new LedgerBusyError();
    const ledger = await this.access.whole(userId, at);
    const bound = at.meta && coverageOf(at.meta, undefined);
    let reached = windowBound(window);
    if (bound === undefined || !coversDownTo(bound, window)) {
      const whole = await readWhole(platform, undefined, window);
      ledger.replaceStretch(undefined, whole.rows, whole.bound, undefined);
      reached = whole.bound;
    }
    ledger.meta.syncFrom = deeper(ledger.meta.syncFrom, reached);
    const outcome = await this.access.save(userId, at, ledger);
    // Rows the ledger covered that the platform now lists otherwise are changes: published like a
    // reconciliation's, so other devices' sync subscriptions push them now.
    await this.ledger.announce(userId, ledger, outcome);
    const kept = ledger.meta.syncFrom;
    if (outcome.outcome === 'too-large') throw new LedgerBusyError();
    return outcome.outcome === 'kept' && kept && !coversDownTo(kept, window) ? kept.at : window;
  }

  private async walk(userId: string, at: LedgerSnapshot, position: SyncPosition, count: number): Promise<SyncAnswer> {
    const after: RowKey | undefined = position.k && { at: position.k[0], id: position.k[1] };
    const page = await selectPage(at.meta!, this.access.reader(userId, at), {
      start: position.s ?? undefined,
      after,
      first: count,
    });
    const last = page.rows.at(-1);
    if (page.hasNextPage && last) {
      const key = keyOf(last);
      return {
        added: page.rows,
        modified: [],
        removed: [],
        nextCursor: encodeSyncCursor({ ...position, k: [key.at, key.id] }),
        hasMore: true,
        start: position.s,
      };
    }
    const { head } = await this.store.readLog(userId, 0, 0);
    const next = { e: position.e, s: position.s, h: position.h };
    return {
      added: page.rows,
      modified: [],
      removed: [],
      nextCursor: encodeSyncCursor(next),
      hasMore: head > position.h,
      start: position.s,
    };
  }

  private async changes(
    userId: string,
    at: LedgerSnapshot,
    position: SyncPosition,
    count: number,
  ): Promise<SyncAnswer> {
    const from = { h: position.h, o: position.o ?? 0 };
    const { changes, next, head } = await readLogStretch(this.store, userId, position.e, from, count);
    return {
      ...(await netRows(this.access, userId, at, changes, position.s ?? undefined)),
      nextCursor: encodeSyncCursor({ e: position.e, s: position.s, h: next.h, ...(next.o > 0 ? { o: next.o } : {}) }),
      hasMore: next.h < head,
      start: position.s,
    };
  }
}
