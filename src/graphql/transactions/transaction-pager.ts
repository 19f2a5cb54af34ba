import type { TransactionFilter } from '../../upstream/core-client.js';
import type { PlatformTransaction } from '../../upstream/platform-types.js';
import { cursorEncoder, type TransactionPosition } from './transaction-cursor.js';

/**
 * A row with its cursor (the row's own position), encoded only when read: most queries never ask
 * for edge cursors. A class getter, not one on each row object: V8 keeps an accessor defined on
 * an object in the old generation, and the page it reached then outlived every young collection.
 */
export class PagedRow {
  constructor(
    readonly row: PlatformTransaction,
    private readonly encode: (position: TransactionPosition) => string,
  ) {}

  get cursor(): string {
    return this.encode({ at: Date.parse(this.row.date), id: this.row._id });
  }
}

/** The rows of a page, each with its lazy cursor for `filter`. */
export function pagedRows(rows: readonly PlatformTransaction[], filter: TransactionFilter): PagedRow[] {
  const encode = cursorEncoder(filter);
  return rows.map((row) => new PagedRow(row, encode));
}
