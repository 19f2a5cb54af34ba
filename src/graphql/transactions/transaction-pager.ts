import type { TransactionFilter } from '../../upstream/core-client.js';
import type { PlatformTransaction, PlatformTransactionPage } from '../../upstream/platform-types.js';
import { cursorEncoder, type TransactionPosition } from './transaction-cursor.js';

/** Most upstream pages one GraphQL page may read (empty pages included), to bound the work. */
const MAX_UPSTREAM_PAGES = 10;

export interface TransactionSlice {
  /** Each row with its cursor, encoded only when read (most queries never ask for edge cursors). */
  rows: Array<{ row: PlatformTransaction; readonly cursor: string }>;
  hasNextPage: boolean;
}

/**
 * A row with the position just after it, encoded as a cursor only when read. A class getter, not
 * one on each row object: V8 keeps an accessor defined on an object in the old generation, and
 * the page it reached then outlived every young collection.
 */
class PagedRow {
  constructor(
    readonly row: PlatformTransaction,
    private readonly after: TransactionPosition,
    private readonly encode: (position: TransactionPosition) => string,
  ) {}

  get cursor(): string {
    return this.encode(this.after);
  }
}

/**
 * Reads `first` transactions after `position`, walking upstream pages as needed. Empty upstream
 * pages that still carry a `next` cursor are followed, not mistaken for the end. Every row's
 * cursor points just after it, so paging resumes with no duplicate and no gap.
 */
export async function readTransactions(
  readPage: (filter: TransactionFilter, cursor: string | null) => Promise<PlatformTransactionPage>,
  filter: TransactionFilter,
  first: number,
  start: TransactionPosition,
): Promise<TransactionSlice> {
  const rows: TransactionSlice['rows'] = [];
  const encode = cursorEncoder(filter);
  let position: TransactionPosition | null = start;
  for (let pages = 0; position && rows.length < first && pages < MAX_UPSTREAM_PAGES; pages += 1) {
    const page = await readPage(filter, position.upstreamCursor);
    const taken = page.items.slice(position.offset, position.offset + (first - rows.length));
    taken.forEach((row, index) => {
      const offset = position!.offset + index + 1;
      const after: TransactionPosition =
        offset < page.items.length || page.next === null
          ? { upstreamCursor: position!.upstreamCursor, offset }
          : { upstreamCursor: page.next, offset: 0 };
      rows.push(new PagedRow(row, after, encode));
    });
    const consumed: number = position.offset + taken.length;
    if (consumed < page.items.length) position = { upstreamCursor: position.upstreamCursor, offset: consumed };
    else position = page.next === null ? null : { upstreamCursor: page.next, offset: 0 };
  }
  return { rows, hasNextPage: position !== null };
}
