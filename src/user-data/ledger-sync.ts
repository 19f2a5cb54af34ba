import type { LedgerChange } from './ledger-rows.js';

/** What changed over a stretch of the change log, net: each id once, as the client must apply it. */
export interface NetChanges {
  /** Ids new to a client that was current at the stretch's start (now in the window). */
  added: string[];
  /** Ids the client holds whose content changed. */
  modified: string[];
  removed: Array<{ id: string; accountId: string }>;
}

/**
 * Folds the change log's entries (oldest first) into one change per id, as Plaid's sync does: a
 * row added and then removed within the stretch is left out (the client never had it), one removed
 * and added back is modified. Rows dated at or before `start` are outside the client's window: one
 * it may hold is removed, one it never had is left out.
 */
export function netChanges(changes: readonly LedgerChange[], start: number | undefined): NetChanges {
  const byId = new Map<string, { first: LedgerChange['kind']; last: LedgerChange }>();
  for (const change of changes) {
    const seen = byId.get(change.id);
    if (seen) seen.last = change;
    else byId.set(change.id, { first: change.kind, last: change });
  }
  const net: NetChanges = { added: [], modified: [], removed: [] };
  for (const [id, { first, last }] of byId) {
    const isNew = first === 'added';
    const gone = last.kind === 'removed' || (start !== undefined && last.at <= start);
    if (gone) {
      if (!isNew) net.removed.push({ id, accountId: last.accountId });
    } else if (isNew) net.added.push(id);
    else net.modified.push(id);
  }
  return net;
}
