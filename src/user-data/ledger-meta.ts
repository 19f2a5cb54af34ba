import { compareKeys, deeper, type Bound, type RowKey } from './ledger-rows.js';

/** One block of the ledger: up to a few hundred consecutive rows, stored (and rewritten) as one entry. */
export interface BlockInfo {
  id: number;
  count: number;
  /** Its first and last rows' keys, so a read fetches only the blocks a page needs. */
  top: RowKey;
  bottom: RowKey;
}

/**
 * The ledger's own record: what it covers, when that was last read whole from the platform, and
 * where its rows are. Kept encrypted like every entry.
 */
export interface LedgerMeta {
  /** A new ledger (after one was dropped) starts a new epoch; sync cursors carry it. */
  epoch: string;
  /** When every covered row was last read from the platform (ms): reconciled after the maximum age. */
  verifiedAt: number;
  /** Coverage of every account together (the platform's all-accounts list); absent: not loaded. */
  all?: Bound;
  /** Coverage of single accounts read on their own, deeper than `all`. */
  accounts: Record<string, Bound>;
  /** The deepest window an app synced from: reconciliation keeps it covered, so its changes are seen. */
  syncFrom?: Bound;
  /** The blocks, in ledger order (newest rows first). */
  blocks: BlockInfo[];
  nextBlock: number;
}

export function emptyMeta(epoch: string, verifiedAt: number): LedgerMeta {
  return { epoch, verifiedAt, accounts: {}, blocks: [], nextBlock: 0 };
}

/** How far one account's rows (or every account's, `accountId` undefined) are covered. */
export function coverageOf(meta: LedgerMeta, accountId: string | undefined): Bound | undefined {
  if (accountId === undefined) return meta.all;
  return deeper(meta.all, meta.accounts[accountId]);
}

/** Records coverage down to `bound` for one account or all, never making it shallower. */
export function extendCoverage(meta: LedgerMeta, accountId: string | undefined, bound: Bound): void {
  if (accountId === undefined) {
    meta.all = deeper(meta.all, bound);
    // An account now covered as deep by the list of all needs no bound of its own.
    for (const [id, own] of Object.entries(meta.accounts))
      if (deeper(own, meta.all) === meta.all) delete meta.accounts[id];
    return;
  }
  const own = deeper(meta.accounts[accountId], bound);
  if (own !== undefined && deeper(own, meta.all) !== meta.all) meta.accounts[accountId] = own;
}

/** After the oldest rows went (the user's cap): nothing is covered below the oldest row kept. */
export function raiseCoverage(meta: LedgerMeta, oldest: RowKey | undefined): void {
  const raise = (bound: Bound | undefined): Bound | undefined => {
    if (bound === undefined || oldest === undefined) return undefined;
    return bound === null || compareKeys(oldest, bound) < 0 ? oldest : bound;
  };
  meta.all = raise(meta.all);
  for (const id of Object.keys(meta.accounts)) {
    const raised = raise(meta.accounts[id]);
    if (raised === undefined) delete meta.accounts[id];
    else meta.accounts[id] = raised;
  }
  if (meta.syncFrom !== undefined) meta.syncFrom = raise(meta.syncFrom);
}
