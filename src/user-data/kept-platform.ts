import { compareKeys, keyOf, windowBound, type Bound, type KeptRow, type RowKey } from './ledger-rows.js';

/** An account as the store needs to know it: by id (the rest is kept as the platform gave it). */
export interface KeptAccount {
  _id: string;
}

/**
 * The platform reads the kept data is filled from, bound to one user (their token and call limit).
 * Structural, so the store needs nothing of the platform client: the loaders hand it theirs.
 */
export interface PlatformReads {
  getMe(): Promise<unknown>;
  listAccounts(): Promise<KeptAccount[]>;
  /** Undefined when the platform answers 404. */
  getAccount(accountId: string): Promise<KeptAccount | undefined>;
  /** One page of settled transactions, newest first (`start` exclusive, `end` inclusive, ISO 8601). */
  listTransactions(
    filter: { accountId?: string; start?: string; end?: string },
    cursor: string | null,
  ): Promise<{ items: KeptRow[]; next: string | null }>;
  getTransactionsByIds(ids: string[]): Promise<KeptRow[]>;
}

/** What the platform listed below a point, and how deep that reaches (see Bound). */
export interface Stretch {
  rows: KeptRow[];
  /** Every row dated after it (and at or before `end`) is in `rows`; undefined: no progress was made. */
  bound: Bound | undefined;
}

/** Platform pages one stretch may follow while it makes no progress (empty pages, one posting instant). */
const MAX_STALLED_PAGES = 5;

/** Pages a whole window may take (100 rows each): a bound on what one sync or reconciliation reads. */
const MAX_WHOLE_PAGES = 200;

const iso = (at: number | undefined) => (at === undefined ? undefined : new Date(at).toISOString());

/**
 * One platform page of one account's settled transactions (or all accounts'), dated after
 * `start`, listed from `after` on (the platform is asked for rows at or before its instant, `end`
 * being inclusive): its rows reach down to its last row's key (the platform lists in the ledger's
 * order), or to `start` when it was the last page. A page that brings nothing past `after` (rows at
 * one instant) or is empty but not the last is followed until it does.
 */
export async function readStretch(
  platform: PlatformReads,
  accountId: string | undefined,
  start: number | undefined,
  after: RowKey | undefined,
): Promise<Stretch> {
  const rows: KeptRow[] = [];
  let cursor: string | null = null;
  for (let page = 0; page < MAX_STALLED_PAGES; page += 1) {
    const end = after && iso(after.at);
    const answer = await platform.listTransactions({ accountId, start: iso(start), end }, cursor);
    rows.push(...answer.items);
    if (answer.next === null) return { rows, bound: windowBound(start) };
    const last = rows.at(-1);
    if (last && (after === undefined || compareKeys(keyOf(last), after) > 0)) return { rows, bound: keyOf(last) };
    cursor = answer.next;
  }
  // No progress below `end` within the pages allowed: nothing deeper is covered than before.
  const last = rows.at(-1);
  return { rows, bound: after === undefined && last ? keyOf(last) : undefined };
}

/** A whole window read from the platform: its rows, and how deep they reach (see Bound). */
export interface WholeWindow {
  rows: KeptRow[];
  /** The window's start, or the last row's key when the window was longer than MAX_WHOLE_PAGES. */
  bound: Bound;
}

/**
 * Every platform page of one account's (or all accounts') settled transactions after `start`, at
 * most MAX_WHOLE_PAGES of them: past that, what was read reaches down to its last row.
 */
export async function readWhole(
  platform: PlatformReads,
  accountId: string | undefined,
  start: number | undefined,
): Promise<WholeWindow> {
  const rows: KeptRow[] = [];
  let cursor: string | null = null;
  for (let page = 0; page < MAX_WHOLE_PAGES; page += 1) {
    const answer = await platform.listTransactions({ accountId, start: iso(start) }, cursor);
    rows.push(...answer.items);
    cursor = answer.next;
    if (cursor === null) return { rows, bound: windowBound(start) };
  }
  const last = rows.at(-1);
  return { rows, bound: last ? keyOf(last) : windowBound(start) };
}
