import { emptyMeta, type LedgerMeta } from './ledger-meta.js';
import { LedgerMovedError, type BlockReader } from './ledger-pages.js';
import type { KeptRow, LedgerChange } from './ledger-rows.js';
import { Ledger } from './ledger.js';
import {
  FIELD,
  TOPIC,
  type ApplyOutcome,
  type Mutation,
  type Snapshot,
  type UserDataStore,
} from './user-data-store.js';

/** The ledger as one read found it: the snapshot (its stamp), the meta if there is a ledger, and the topics stamped. */
export interface LedgerSnapshot {
  snap: Snapshot;
  meta: LedgerMeta | undefined;
  topics: readonly string[];
}

/** A batch of the change log as stored: the ledger's epoch and its changes. */
export interface LogBatch {
  epoch: string;
  changes: LedgerChange[];
}

/** Blocks a page read fetches with the meta, in the same round trip. */
const HEAD_BLOCKS = 2;

/**
 * Reads and writes the ledger's fields in the user-data store: a snapshot of the meta (and the
 * first blocks), further blocks checked against the snapshot's stamp (a block read after a change
 * is refused, so a page never mixes two versions), the whole ledger for a change, and a change
 * written back under compare-and-set, trimming the oldest rows when the user's cap is reached.
 */
export class LedgerAccess {
  constructor(
    private readonly store: UserDataStore,
    private readonly newEpoch: () => string,
  ) {}

  async snapshot(
    userId: string,
    options: { topics?: readonly string[]; fields?: readonly string[]; head?: number } = {},
  ): Promise<LedgerSnapshot> {
    const topics = options.topics ?? [TOPIC.ledger];
    const snap = await this.store.read(
      userId,
      [FIELD.ledgerMeta, ...(options.fields ?? [])],
      topics,
      options.head ?? HEAD_BLOCKS,
    );
    const stored = snap.values.get(FIELD.ledgerMeta);
    return { snap, meta: stored && (JSON.parse(stored.value) as LedgerMeta), topics };
  }

  /** Reads blocks for a page: from the snapshot when it has them, else from the store at the same stamp. */
  reader(userId: string, at: LedgerSnapshot): BlockReader {
    return async (ids) => {
      const blocks = new Map<number, KeptRow[]>();
      const missing: number[] = [];
      for (const id of ids) {
        const kept = at.snap.values.get(FIELD.block(id));
        if (kept) blocks.set(id, JSON.parse(kept.value) as KeptRow[]);
        else missing.push(id);
      }
      if (missing.length === 0) return blocks;
      const more = await this.store.read(userId, missing.map(FIELD.block), at.topics);
      if (more.stamp !== at.snap.stamp) throw new LedgerMovedError();
      for (const id of missing) {
        const kept = more.values.get(FIELD.block(id));
        if (kept) blocks.set(id, JSON.parse(kept.value) as KeptRow[]);
      }
      return blocks;
    };
  }

  /** The whole ledger, to change it (or an empty one when there is none yet). */
  async whole(userId: string, at: LedgerSnapshot): Promise<Ledger> {
    if (!at.meta) return new Ledger(emptyMeta(this.newEpoch(), at.snap.at), new Map());
    const ids = at.meta.blocks.map((block) => block.id);
    const blocks = await this.reader(userId, at)(ids);
    if (blocks.size !== ids.length) throw new LedgerMovedError();
    return new Ledger(structuredClone(at.meta), blocks);
  }

  /**
   * Writes the ledger's changes (and `extra`) if nothing changed since the snapshot; the changes go
   * to the change log. Past the user's cap the oldest block goes, and again, until it fits: coverage
   * (and the synced window) rises to the oldest row kept. The epoch and the change log stay: a sync
   * cursor whose window still lies within continues, a deeper one is refused (see KeptSync).
   */
  async save(userId: string, at: LedgerSnapshot, ledger: Ledger, extra: Mutation = {}): Promise<ApplyOutcome> {
    for (;;) {
      const { meta, blocks } = ledger.write();
      const batch: LogBatch = { epoch: meta.epoch, changes: ledger.changes };
      const outcome = await this.store.apply(userId, at.snap, {
        ...extra,
        put: [
          ...(extra.put ?? []),
          [FIELD.ledgerMeta, JSON.stringify(meta), meta.verifiedAt],
          ...blocks.map(([id, rows]) => [FIELD.block(id), rows && JSON.stringify(rows)] as const),
        ],
        bump: [TOPIC.ledger, ...(extra.bump ?? [])],
        ...(ledger.changes.length > 0 ? { log: JSON.stringify(batch) } : {}),
        order: meta.blocks.map((block) => block.id).join(','),
        overCap: 'refuse',
      });
      if (outcome.outcome !== 'over-cap') return outcome;
      if (!ledger.dropOldestBlock()) return { outcome: 'too-large' };
    }
  }
}
