import { coverageOf, type LedgerMeta } from './ledger-meta.js';
import { compareKeys, coversDownTo, keyOf, trusted, type KeptRow, type RowKey } from './ledger-rows.js';

/** A page of the ledger: one account or all, dated in `(start, end]`, after a row already shown. */
export interface PageQuery {
  accountId?: string;
  /** Exclusive, ms since the epoch. */
  start?: number;
  /** Inclusive, ms since the epoch. */
  end?: number;
  /** The last row the client was given: the page starts right after it. */
  after?: RowKey;
  first: number;
}

/**
 * The rows; `extend` when the ledger does not yet reach deep enough to fill the page (read more
 * from the platform, then ask again).
 */
export interface PageAnswer {
  rows: KeptRow[];
  hasNextPage: boolean;
  extend: boolean;
}

/** Reads the blocks named (a store round trip); a block missing from the answer has changed under the read. */
export type BlockReader = (ids: readonly number[]) => Promise<ReadonlyMap<number, KeptRow[]>>;

/** Blocks fetched per round trip while a page is gathered. */
const BLOCKS_PER_READ = 2;

/** Thrown when a block the meta names is not there: the ledger changed between two reads. */
export class LedgerMovedError extends Error {
  constructor() {
    super('the ledger changed while it was read');
    this.name = 'LedgerMovedError';
  }
}

/**
 * Gathers a page from the blocks that hold it, in ledger order. Only covered rows are served; a
 * page that needs rows below the coverage (and whose window reaches there) asks for the ledger to
 * be extended first. A cursor is a row's key, so rows that arrive or leave meanwhile move nothing:
 * no row is shown twice and none is skipped.
 */
export async function selectPage(meta: LedgerMeta, readBlocks: BlockReader, query: PageQuery): Promise<PageAnswer> {
  const bound = coverageOf(meta, query.accountId);
  if (bound === undefined) return { rows: [], hasNextPage: true, extend: true };
  const from = query.after ?? (query.end === undefined ? undefined : { at: query.end, id: '' });
  const inclusive = query.after === undefined;
  const wanted = meta.blocks.filter((block) => from === undefined || compareKeys(block.bottom, from) >= 0);
  const rows: KeptRow[] = [];
  let below = false; // reached rows the ledger does not cover
  let ended = false; // reached the window's start
  for (let index = 0; index < wanted.length && !below && !ended && rows.length <= query.first;) {
    const ids = wanted.slice(index, index + BLOCKS_PER_READ).map((block) => block.id);
    index += ids.length;
    const blocks = await readBlocks(ids);
    for (const id of ids) {
      const block = blocks.get(id);
      if (!block) throw new LedgerMovedError();
      for (const row of block) {
        const key = keyOf(row);
        if (from !== undefined) {
          const order = compareKeys(key, from);
          if (order < 0 || (order === 0 && !inclusive)) continue;
        }
        if (query.start !== undefined && key.at <= query.start) ended = true;
        else if (!trusted(key, bound)) below = true;
        if (ended || below) break;
        if (query.accountId !== undefined && row._account !== query.accountId) continue;
        rows.push(row);
        if (rows.length > query.first) break;
      }
      if (ended || below || rows.length > query.first) break;
    }
  }
  if (rows.length > query.first) return { rows: rows.slice(0, query.first), hasNextPage: true, extend: false };
  if (ended || coversDownTo(bound, query.start)) return { rows, hasNextPage: false, extend: false };
  // The window reaches below the coverage: more may be at the platform.
  return { rows, hasNextPage: true, extend: rows.length < query.first };
}
