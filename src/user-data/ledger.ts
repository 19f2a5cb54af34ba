import { coverageOf, extendCoverage, raiseCoverage, type LedgerMeta } from './ledger-meta.js';
import {
  compareKeys,
  keyOf,
  sameRow,
  trusted,
  type Bound,
  type KeptRow,
  type LedgerChange,
  type RowKey,
} from './ledger-rows.js';

/** Past this many rows a block is split in two; a page of 100 reads one or two blocks. */
export const BLOCK_MAX_ROWS = 200;

interface Block {
  id: number;
  rows: KeptRow[];
}

/** What a ledger change writes: the new meta and each block rewritten (null: gone). */
export interface LedgerWrite {
  meta: LedgerMeta;
  blocks: Array<[id: number, rows: KeptRow[] | null]>;
}

/**
 * A user's settled transactions, every block in hand, being changed: rows inserted in order or
 * replaced by id, removed by id, or a stretch replaced by what the platform listed for it. Each
 * change to a row the ledger already covered is recorded for sync; rows that only become covered
 * (a deeper page read for the first time) are not changes. `write()` gives the blocks changed.
 */
export class Ledger {
  readonly changes: LedgerChange[] = [];
  private readonly blocks: Block[];
  private readonly byId = new Map<string, Block>();
  private readonly dirty = new Set<number>();
  private readonly gone = new Set<number>();

  constructor(
    readonly meta: LedgerMeta,
    stored: ReadonlyMap<number, KeptRow[]>,
  ) {
    this.blocks = meta.blocks.map((info) => ({ id: info.id, rows: stored.get(info.id) ?? [] }));
    for (const block of this.blocks) for (const row of block.rows) this.byId.set(row._id, block);
  }

  get size(): number {
    return this.byId.size;
  }

  find(id: string): KeptRow | undefined {
    return this.byId.get(id)?.rows.find((row) => row._id === id);
  }

  /** Every row, in order. */
  rows(): KeptRow[] {
    return this.blocks.flatMap((block) => block.rows);
  }

  /**
   * Rows the platform says are new or changed (a webhook's ids): each replaces its namesake or is
   * inserted in order, if the ledger covers its date; rows it does not cover are left to the read
   * that extends it there.
   */
  upsert(rows: readonly KeptRow[]): void {
    for (const row of rows) {
      const covered = this.covers(row);
      const old = this.find(row._id);
      if (old && sameRow(old, row)) continue;
      if (old) this.take(old, covered ? undefined : 'removed');
      if (!covered) continue;
      this.put(row);
      this.record(old ? 'modified' : 'added', row);
    }
  }

  /** Rows the platform removed (TRANSACTION DELETE): no platform call. */
  remove(ids: readonly string[]): void {
    for (const id of ids) {
      const row = this.find(id);
      if (row) this.take(row, 'removed');
    }
  }

  /** An account the app no longer reaches: its rows and its coverage go. */
  removeAccount(accountId: string): void {
    for (const row of this.rows()) if (row._account === accountId) this.take(row, 'removed');
    delete this.meta.accounts[accountId];
  }

  /**
   * What the platform listed for one account (or all) after `to` and down to `from` (in ledger
   * order; `to` undefined: from the newest), read whole: rows the
   * ledger has there and the platform no longer lists go, the others are replaced or inserted, and
   * coverage reaches down to `from`. Changes are recorded only where the ledger covered before.
   */
  replaceStretch(accountId: string | undefined, rows: readonly KeptRow[], from: Bound, to: RowKey | undefined): void {
    const before = (row: KeptRow) => this.covers(row);
    const listed = new Set(rows.map((row) => row._id));
    const inStretch = (key: RowKey) => trusted(key, from) && (to === undefined || compareKeys(key, to) > 0);
    for (const row of this.rows()) {
      if (accountId !== undefined && row._account !== accountId) continue;
      if (inStretch(keyOf(row)) && !listed.has(row._id)) this.take(row, before(row) ? 'removed' : undefined);
    }
    for (const row of rows) {
      const old = this.find(row._id);
      if (old && sameRow(old, row)) continue;
      const known = old ? before(old) : before(row);
      if (old) this.take(old, undefined);
      this.put(row);
      if (known) this.record(old ? 'modified' : 'added', row);
    }
    extendCoverage(this.meta, accountId, from);
  }

  /**
   * After a reconciliation that read only the newest stretch: coverage is exactly that stretch
   * (every account together), and rows older than it are let go without being recorded as changes
   * (they did not change; the ledger stops vouching for them, and reads them again when asked).
   */
  coverOnly(bound: Bound): void {
    for (const row of this.rows()) if (!trusted(keyOf(row), bound)) this.take(row, undefined);
    this.meta.all = bound;
    this.meta.accounts = {};
  }

  /**
   * Drops the oldest block (the user's cap): coverage rises to the oldest row kept, and a sync
   * window reaching below it can no longer be kept current. False when nothing is left to drop.
   */
  dropOldestBlock(): boolean {
    const last = this.blocks.pop();
    if (!last) return false;
    for (const row of last.rows) this.byId.delete(row._id);
    this.gone.add(last.id);
    const oldest = this.blocks.at(-1)?.rows.at(-1);
    raiseCoverage(this.meta, oldest && keyOf(oldest));
    return true;
  }

  /** The meta and the blocks to write; empty blocks go, long ones are split. */
  write(): LedgerWrite {
    const written: LedgerWrite['blocks'] = [];
    for (let index = 0; index < this.blocks.length; index += 1) {
      const block = this.blocks[index]!;
      if (block.rows.length === 0) {
        this.blocks.splice(index, 1);
        index -= 1;
        this.gone.add(block.id);
      } else if (block.rows.length > BLOCK_MAX_ROWS) {
        const half: Block = { id: this.meta.nextBlock++, rows: block.rows.splice(block.rows.length >> 1) };
        for (const moved of half.rows) this.byId.set(moved._id, half);
        this.blocks.splice(index + 1, 0, half);
        this.dirty.add(block.id).add(half.id);
        index -= 1; // both halves are looked at again: one may still be too long
      }
    }
    const live = new Set(this.blocks.map((block) => block.id));
    for (const id of this.gone) if (!live.has(id)) written.push([id, null]);
    for (const block of this.blocks) if (this.dirty.has(block.id)) written.push([block.id, block.rows]);
    this.meta.blocks = this.blocks.map((block) => ({
      id: block.id,
      count: block.rows.length,
      top: keyOf(block.rows[0]!),
      bottom: keyOf(block.rows.at(-1)!),
    }));
    return { meta: this.meta, blocks: written };
  }

  /** Whether the ledger vouches for the row's place (its date is under its account's coverage). */
  private covers(row: KeptRow): boolean {
    const bound = coverageOf(this.meta, row._account);
    return bound !== undefined && trusted(keyOf(row), bound);
  }

  private record(kind: LedgerChange['kind'], row: KeptRow): void {
    this.changes.push({ kind, id: row._id, accountId: row._account, at: keyOf(row).at });
  }

  private take(row: KeptRow, record: LedgerChange['kind'] | undefined): void {
    const block = this.byId.get(row._id)!;
    block.rows.splice(block.rows.indexOf(row), 1);
    this.byId.delete(row._id);
    this.dirty.add(block.id);
    if (record) this.record(record, row);
  }

  /** Inserts in order into the first block whose last row comes at or after it (or the last block). */
  private put(row: KeptRow): void {
    const key = keyOf(row);
    const last = (candidate: Block) => candidate.rows.at(-1);
    let block = this.blocks.find((candidate) => {
      const bottom = last(candidate);
      return bottom !== undefined && compareKeys(key, keyOf(bottom)) <= 0;
    });
    block ??= this.blocks.at(-1);
    if (!block) {
      block = { id: this.meta.nextBlock++, rows: [] };
      this.blocks.push(block);
    }
    block.rows.splice(insertionIndex(block.rows, key), 0, row);
    this.byId.set(row._id, block);
    this.dirty.add(block.id);
  }
}

function insertionIndex(rows: readonly KeptRow[], key: RowKey): number {
  let low = 0;
  let high = rows.length;
  while (low < high) {
    const middle = (low + high) >> 1;
    if (compareKeys(keyOf(rows[middle]!), key) < 0) low = middle + 1;
    else high = middle;
  }
  return low;
}
