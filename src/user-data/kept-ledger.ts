import type { Clock } from '@open-finance-gateway/common/clock';
import { readStretch, readWhole, type PlatformReads } from './kept-platform.js';
import { LedgerAccess, type LedgerSnapshot } from './ledger-access.js';
import { coverageOf, type LedgerMeta } from './ledger-meta.js';
import { LedgerMovedError, selectPage, type BlockReader, type PageAnswer, type PageQuery } from './ledger-pages.js';
import type { KeptRow, LedgerChange } from './ledger-rows.js';
import type { Ledger } from './ledger.js';
import type { ApplyOutcome, KeptDataTrust } from './user-data-store.js';

/**
 * Told of what a reconciliation found and applied, to publish it as changes: the changes, the rows
 * added or changed as they are now, and the change log stretch they went to.
 */
export type ReconciledTransactions = (
  userId: string,
  changes: readonly LedgerChange[],
  rows: ReadonlyMap<string, KeptRow>,
  sync: { epoch: string; from: number; to: number } | undefined,
) => Promise<void>;

export interface KeptLedgerOptions {
  access: LedgerAccess;
  clock: Clock;
  maxAgeMs: number;
  onReconciled?: ReconciledTransactions;
}

/** Platform pages one GraphQL page may read to extend the ledger (empty pages included). */
const MAX_EXTENSIONS = 10;
/** Reads of the ledger one page may make while webhooks keep changing it, before reading the platform alone. */
const MAX_ATTEMPTS = 8;

/** The ledger kept changing under a read: the caller reads the platform instead. */
export class LedgerBusyError extends Error {
  constructor() {
    super('the ledger kept changing while it was read');
    this.name = 'LedgerBusyError';
  }
}

/**
 * Settled transactions from the ledger: a page is served from the rows it covers, the ledger
 * extended from the platform (one page at a time) where a page reaches below them, and reconciled
 * with the platform once its rows are older than the maximum age.
 */
export class KeptLedger {
  constructor(private readonly options: KeptLedgerOptions) {}

  async page(userId: string, platform: PlatformReads, query: PageQuery, trust: KeptDataTrust): Promise<PageAnswer> {
    const { access } = this.options;
    let extensions = 0;
    for (let attempt = 0; attempt < MAX_ATTEMPTS; attempt += 1) {
      const at = await access.snapshot(userId);
      if (at.meta && this.isOld(at.meta, trust)) {
        await this.reconcile(userId, platform, at);
        continue;
      }
      let answer: PageAnswer | undefined;
      try {
        answer = at.meta && (await selectPage(at.meta, access.reader(userId, at), query));
      } catch (error) {
        if (error instanceof LedgerMovedError) continue;
        throw error;
      }
      if (answer && !answer.extend) return answer;
      if (extensions >= MAX_EXTENSIONS) return answer ?? { rows: [], hasNextPage: true, extend: false };
      extensions += 1;
      await this.extend(userId, platform, at, query);
    }
    throw new LedgerBusyError();
  }

  /**
   * The rows by id: from the ledger where it holds them, the rest from the platform (not kept); all
   * from the platform while the ledger is to be reconciled (old, or marked stale by a webhook whose
   * read failed). Blocks are read newest first, a few at a time, only until every id is found: the
   * rows a webhook just named are near the top.
   */
  async byIds(
    userId: string,
    platform: PlatformReads,
    ids: readonly string[],
    trust: KeptDataTrust,
  ): Promise<KeptRow[]> {
    const { access } = this.options;
    for (let attempt = 0; attempt < MAX_ATTEMPTS; attempt += 1) {
      const at = await access.snapshot(userId);
      if (!at.meta || this.isOld(at.meta, trust)) break;
      try {
        const found = await findRows(at.meta, access.reader(userId, at), ids);
        const missing = ids.filter((id) => !found.has(id));
        const read = missing.length > 0 ? await platform.getTransactionsByIds(missing) : [];
        return ids.flatMap((id) => found.get(id) ?? read.find((row) => row._id === id) ?? []);
      } catch (error) {
        if (!(error instanceof LedgerMovedError)) throw error;
      }
    }
    return platform.getTransactionsByIds([...ids]);
  }

  /**
   * Whether the ledger must be reconciled before it is served: older than the maximum age, or read
   * before (or while) an instance of an earlier version shared the store.
   */
  isOld(meta: LedgerMeta, trust: KeptDataTrust): boolean {
    return (
      trust.mixed || meta.verifiedAt < trust.since || this.options.clock() - meta.verifiedAt >= this.options.maxAgeMs
    );
  }

  /** One platform page below the coverage of the page's account (or all), merged into the ledger. */
  private async extend(userId: string, platform: PlatformReads, at: LedgerSnapshot, query: PageQuery): Promise<void> {
    const bound = at.meta ? coverageOf(at.meta, query.accountId) : undefined;
    if (bound === null) return; // covered to the beginning: nothing deeper exists
    const stretch = await readStretch(platform, query.accountId, query.start, bound);
    if (stretch.bound === undefined) return;
    const ledger = await this.options.access.whole(userId, at);
    ledger.replaceStretch(query.accountId, stretch.rows, stretch.bound, bound);
    // Stale: a webhook changed the ledger meanwhile; the page reads it again (and extends again if it must).
    await this.options.access.save(userId, at, ledger);
  }

  /**
   * Reads again what the ledger covers, applies the differences and has them published. A ledger
   * that an app syncs keeps its whole sync window; one only paged through keeps the newest page
   * (older rows are read again when a page reaches them), so a reconciliation costs one call.
   */
  async reconcile(userId: string, platform: PlatformReads, at: LedgerSnapshot): Promise<void> {
    const meta = at.meta!;
    const ledger = await this.options.access.whole(userId, at);
    if (meta.syncFrom !== undefined) {
      // Every row after the synced window's start (or as far as one read reaches: the window is
      // then synced from there on; a cursor of a deeper window is refused).
      const whole = await readWhole(platform, undefined, meta.syncFrom?.at);
      ledger.replaceStretch(undefined, whole.rows, whole.bound, undefined);
      ledger.coverOnly(whole.bound);
      ledger.meta.syncFrom = whole.bound;
    } else {
      const stretch = await readStretch(platform, undefined, undefined, undefined);
      if (stretch.bound === undefined) return; // the platform made no progress: try again on the next read
      ledger.replaceStretch(undefined, stretch.rows, stretch.bound, undefined);
      ledger.coverOnly(stretch.bound);
    }
    ledger.meta.verifiedAt = at.snap.at;
    await this.announce(userId, ledger, await this.options.access.save(userId, at, ledger));
  }

  /**
   * Has the changes a read found at the platform (a reconciliation, a sync's first read) published
   * as the webhooks that would have announced them, once they are kept.
   */
  async announce(userId: string, ledger: Ledger, outcome: ApplyOutcome): Promise<void> {
    if (outcome.outcome !== 'kept' || ledger.changes.length === 0) return;
    const sync =
      outcome.position === undefined
        ? undefined
        : { epoch: ledger.meta.epoch, from: outcome.position - 1, to: outcome.position };
    const rows = new Map(
      ledger.changes.flatMap((change) => {
        const row = ledger.find(change.id);
        return row ? [[change.id, row] as const] : [];
      }),
    );
    await this.options.onReconciled?.(userId, ledger.changes, rows, sync);
  }
}

/** Blocks read per round trip while rows are looked for by id. */
const BLOCKS_PER_LOOK = 2;

/** The rows of `ids` the ledger holds, reading its blocks newest first until all are found. */
async function findRows(meta: LedgerMeta, read: BlockReader, ids: readonly string[]): Promise<Map<string, KeptRow>> {
  const wanted = new Set(ids);
  const found = new Map<string, KeptRow>();
  for (let index = 0; index < meta.blocks.length && found.size < wanted.size; index += BLOCKS_PER_LOOK) {
    const chunk = meta.blocks.slice(index, index + BLOCKS_PER_LOOK).map((block) => block.id);
    const blocks = await read(chunk);
    if (blocks.size !== chunk.length) throw new LedgerMovedError();
    for (const rows of blocks.values()) for (const row of rows) if (wanted.has(row._id)) found.set(row._id, row);
  }
  return found;
}
