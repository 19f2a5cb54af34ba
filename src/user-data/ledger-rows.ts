/**
 * What the ledger knows of a settled transaction: the platform's row as it gave it, of which only
 * the id, the account and the posting date matter here (the rest is kept as given). Structural, so
 * the store needs nothing of the platform client's types.
 */
export interface KeptRow {
  _id: string;
  _account: string;
  date: string;
}

/**
 * A row's place in the ledger: newest first, then by id, the platform's own order for settled
 * transactions. A key is also what the gateway's page cursors and sync walks resume after, so a row
 * arriving or leaving never moves another one's place.
 */
export interface RowKey {
  /** The posting date, ms since the epoch. */
  at: number;
  id: string;
}

export function keyOf(row: KeptRow): RowKey {
  return { at: Date.parse(row.date), id: row._id };
}

/** Negative when `a` comes first in the ledger (newer, or as new with the smaller id). */
export function compareKeys(a: RowKey, b: RowKey): number {
  if (a.at !== b.at) return b.at - a.at;
  return a.id < b.id ? -1 : a.id > b.id ? 1 : 0;
}

/**
 * Where coverage ends: every settled row at or before this key (in ledger order) is in the ledger;
 * `null`: every row there is, to the beginning of the account's history. The platform lists rows
 * in the same order, so one page of it covers down to its last row's key. Rows after a bound may
 * be present too, but are not trusted to be all there is until the ledger is extended past them.
 */
export type Bound = RowKey | null;

/** The bound that a window starting after `start` (exclusive, ms) ends at: every row dated after it. */
export const windowBound = (start: number | undefined): Bound => (start === undefined ? null : { at: start, id: '' });

/** The deeper of two bounds (covering more); `undefined` is no coverage at all. */
export function deeper(a: Bound | undefined, b: Bound | undefined): Bound | undefined {
  if (a === undefined) return b;
  if (b === undefined) return a;
  if (a === null || b === null) return null;
  return compareKeys(a, b) >= 0 ? a : b;
}

/** Whether coverage down to `bound` includes every row dated after `start` (the start exclusive). */
export function coversDownTo(bound: Bound, start: number | undefined): boolean {
  if (bound === null) return true;
  return start !== undefined && compareKeys(bound, { at: start, id: '' }) >= 0;
}

/** Whether a row at `key` is trusted under `bound` (at or before it). */
export function trusted(key: RowKey, bound: Bound): boolean {
  return bound === null || compareKeys(key, bound) <= 0;
}

/** One change to the ledger, as sync clients receive it: a row added, changed or removed. */
export interface LedgerChange {
  kind: 'added' | 'modified' | 'removed';
  id: string;
  accountId: string;
  /** The row's posting date (ms), so a sync of a window can leave out older rows. */
  at: number;
}

/** The same content, judged by what a client would receive (the row as the platform gave it). */
export function sameRow(a: KeptRow, b: KeptRow): boolean {
  return JSON.stringify(a) === JSON.stringify(b);
}
