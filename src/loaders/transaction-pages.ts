import type { TransactionFilter } from '../upstream/core-user-calls.js';
import type { PlatformTransaction, PlatformTransactionPage } from '../upstream/platform-types.js';
import { compareKeys, keyOf, type RowKey } from '../user-data/ledger-rows.js';

/** One page of settled transactions as a client asks for it: the query, where it resumes, and how many. */
export interface TransactionPageKey {
  filter: TransactionFilter;
  /** The key of the last row the client was given (the gateway's own cursor). */
  after?: RowKey;
  first: number;
}

export interface TransactionRows {
  rows: PlatformTransaction[];
  hasNextPage: boolean;
}

/** Most platform pages one GraphQL page may read (empty pages included), to bound the work. */
const MAX_PLATFORM_PAGES = 10;

/**
 * A page read from the platform alone (the user-data store off, or skipped while it fails), with
 * the same cursors as the ledger's: a row's key. The platform is asked for rows at or before the
 * last row shown (`end` is inclusive) and those up to it are skipped, so rows that arrive
 * meanwhile move nothing: no row twice, none skipped. Empty pages that still carry a `next` cursor
 * are followed, not mistaken for the end.
 */
export async function platformPage(
  list: (filter: TransactionFilter, cursor: string | null) => Promise<PlatformTransactionPage>,
  { filter, after, first }: TransactionPageKey,
): Promise<TransactionRows> {
  const end = after ? new Date(after.at).toISOString() : filter.end;
  const rows: PlatformTransaction[] = [];
  let cursor: string | null = null;
  for (let pages = 0; pages < MAX_PLATFORM_PAGES; pages += 1) {
    const page = await list({ ...filter, end }, cursor);
    const ordered = [...page.items].sort((a, b) => compareKeys(keyOf(a), keyOf(b)));
    for (const row of ordered) if (!after || compareKeys(keyOf(row), after) > 0) rows.push(row);
    // A full page with a `next` cursor: more may follow (the next page can be empty, as the platform's can).
    if (rows.length >= first)
      return { rows: rows.slice(0, first), hasNextPage: rows.length > first || page.next !== null };
    if (page.next === null) return { rows, hasNextPage: false };
    cursor = page.next;
  }
  return { rows, hasNextPage: true };
}
