import type { LedgerAccess, LedgerSnapshot, LogBatch } from './ledger-access.js';
import { LedgerMovedError } from './ledger-pages.js';
import { compareKeys, type KeptRow, type LedgerChange, type RowKey } from './ledger-rows.js';
import { netChanges } from './ledger-sync.js';
import { SyncCursorError } from './sync-cursor.js';
import type { UserDataStore } from './user-data-store.js';

/** Where a sync stands in the change log: `h` whole batches, and `o` changes of the next one. */
export interface LogPlace {
  h: number;
  o: number;
}

/** What one answer of a sync takes from the change log. */
export interface LogStretch {
  changes: LedgerChange[];
  /** Where the next answer continues. */
  next: LogPlace;
  /** The log's newest position. */
  head: number;
}

/**
 * The change log from `from` on, as far as `count` rows go: changes are taken in order until the
 * next one would name a `count + 1`-th transaction, so an answer holds at most `count` rows however
 * large one batch is (a reconciliation's, a webhook naming hundreds of ids); the rest follows from
 * `next`, which may fall inside a batch. All of `epoch`, with no gap: else the cursor expired.
 */
export async function readLogStretch(
  store: UserDataStore,
  userId: string,
  epoch: string,
  from: LogPlace,
  count: number,
): Promise<LogStretch> {
  const { head } = await store.readLog(userId, 0, 0);
  if (from.h > head) throw new SyncCursorError('EXPIRED');
  // Each batch holds at least one change: `count` batches (and the one begun) are enough.
  const limit = Math.min(count + 1, head - from.h);
  if (limit <= 0) return { changes: [], next: { h: from.h, o: 0 }, head };
  const log = await store.readLog(userId, from.h, limit);
  if (from.h + 1 < log.oldest && from.h < log.head) throw new SyncCursorError('EXPIRED');
  const batches = log.entries.map((entry) => JSON.parse(entry.value) as LogBatch);
  const whole = log.entries.every((entry, index) => entry.position === from.h + 1 + index);
  if (!whole || log.entries.length < Math.min(limit, log.head - from.h) || batches.some((b) => b.epoch !== epoch))
    throw new SyncCursorError('EXPIRED');
  return { ...takeChanges(batches, from, count), head };
}

function takeChanges(batches: readonly LogBatch[], from: LogPlace, count: number): Omit<LogStretch, 'head'> {
  const changes: LedgerChange[] = [];
  const named = new Set<string>();
  let { h, o } = from;
  for (const batch of batches) {
    for (let index = o; index < batch.changes.length; index += 1) {
      const change = batch.changes[index]!;
      if (!named.has(change.id) && named.size >= count) return { changes, next: { h, o: index } };
      named.add(change.id);
      changes.push(change);
    }
    h += 1;
    o = 0;
  }
  return { changes, next: { h, o: 0 } };
}

/**
 * The net changes of a stretch, with the rows added or modified as the ledger holds them now. Only
 * the blocks whose key range holds a row's key (its id and posting date, as its last change
 * recorded them) are read, not the whole ledger; a row not found there (its date changed since)
 * is looked for in the rest.
 */
export async function netRows(
  access: LedgerAccess,
  userId: string,
  at: LedgerSnapshot,
  changes: readonly LedgerChange[],
  start: number | undefined,
): Promise<{ added: KeptRow[]; modified: KeptRow[]; removed: Array<{ id: string; accountId: string }> }> {
  const net = netChanges(changes, start);
  const wanted = [...net.added, ...net.modified];
  if (wanted.length === 0) return { added: [], modified: [], removed: net.removed };
  const keys = new Map<string, RowKey>(changes.map((change) => [change.id, { at: change.at, id: change.id }]));
  const meta = at.meta!;
  const holding = meta.blocks.filter((block) =>
    wanted.some((id) => compareKeys(block.top, keys.get(id)!) <= 0 && compareKeys(keys.get(id)!, block.bottom) <= 0),
  );
  const found = new Map<string, KeptRow>();
  const look = async (ids: number[]) => {
    const blocks = await access.reader(userId, at)(ids);
    if (blocks.size !== ids.length) throw new LedgerMovedError();
    for (const rows of blocks.values()) for (const row of rows) found.set(row._id, row);
  };
  await look(holding.map((block) => block.id));
  if (wanted.some((id) => !found.has(id)))
    await look(meta.blocks.filter((block) => !holding.includes(block)).map((block) => block.id));
  const rows = (ids: string[]) => ids.flatMap((id) => found.get(id) ?? []);
  return { added: rows(net.added), modified: rows(net.modified), removed: net.removed };
}
