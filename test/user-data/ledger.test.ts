import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { LedgerAccess } from '../../src/user-data/ledger-access.js';
import { emptyMeta } from '../../src/user-data/ledger-meta.js';
import { selectPage } from '../../src/user-data/ledger-pages.js';
import { keyOf, type KeptRow } from '../../src/user-data/ledger-rows.js';
import { netChanges } from '../../src/user-data/ledger-sync.js';
import { BLOCK_MAX_ROWS, Ledger } from '../../src/user-data/ledger.js';
import { createMemoryUserDataStore } from '../../src/user-data/memory-user-data-store.js';
import { TOPIC } from '../../src/user-data/user-data-store.js';

const DAY = 86_400_000;
const row = (n: number, account = 'acc_1', extra: Record<string, unknown> = {}): KeptRow => ({
  _id: `trans_${String(n).padStart(4, '0')}`,
  _account: account,
  date: new Date(n * DAY).toISOString(),
  ...extra,
});
/** Rows n..1, newest first, as the platform lists them. */
const history = (n: number, account?: string) => Array.from({ length: n }, (_, index) => row(n - index, account));
const ids = (rows: readonly KeptRow[]) => rows.map((kept) => kept._id);

/** A ledger that covers `rows` whole (the platform's last page was read). */
function covering(rows: KeptRow[]): Ledger {
  const ledger = new Ledger(emptyMeta('e1', 0), new Map());
  ledger.replaceStretch(undefined, rows, null, undefined);
  ledger.changes.length = 0;
  return ledger;
}

/** The ledger's write read back, as a page would: the meta and a block reader over what was written. */
function written(ledger: Ledger) {
  const { meta, blocks } = ledger.write();
  const stored = new Map(blocks.filter(([, rows]) => rows !== null) as Array<[number, KeptRow[]]>);
  return { meta, read: async (wanted: readonly number[]) => new Map(wanted.map((id) => [id, stored.get(id)!])) };
}

describe('the ledger', () => {
  it('keeps rows in the platform\u2019s order across blocks, inserting by key and splitting long blocks', () => {
    const ledger = covering(history(BLOCK_MAX_ROWS + 50));
    ledger.upsert([row(BLOCK_MAX_ROWS + 60), row(10.5)]);
    const all = ledger.rows();
    expect(ids(all)).toEqual(
      ids([...all].sort((a, b) => (keyOf(a).at === keyOf(b).at ? 0 : keyOf(b).at - keyOf(a).at))),
    );
    const { meta } = ledger.write();
    expect(meta.blocks.length).toBeGreaterThan(1);
    expect(meta.blocks.every((block) => block.count <= BLOCK_MAX_ROWS)).toBe(true);
    expect(ledger.changes.map((change) => change.kind)).toEqual(['added', 'added']);
    // A row in a block split off is found there: removing it takes exactly it.
    const last = ledger.rows().at(-1)!;
    const count = ledger.size;
    ledger.remove([last._id]);
    expect(ledger.size).toBe(count - 1);
    expect(ledger.find(last._id)).toBeUndefined();
    expect(ledger.rows().at(-1)!._id).toBe(ids(all).at(-2));
  });

  it('records a change only where it covered before: an update and a removal; not a row it never vouched for', () => {
    const ledger = new Ledger(emptyMeta('e1', 0), new Map());
    ledger.replaceStretch(undefined, history(100).slice(0, 30), keyOf(row(71)), undefined); // covers rows 100..71
    ledger.upsert([row(90, 'acc_1', { amount: 5 }), row(50)]); // 90 changed; 50 is below the coverage
    ledger.remove(['trans_0080']);
    expect(ledger.changes.map((change) => [change.kind, change.id])).toEqual([
      ['modified', 'trans_0090'],
      ['removed', 'trans_0080'],
    ]);
    expect(ledger.find('trans_0050')).toBeUndefined();
    // Reading further down covers more: rows only newly covered are not changes.
    ledger.changes.length = 0;
    ledger.replaceStretch(undefined, history(70).slice(0, 20), keyOf(row(51)), keyOf(row(71)));
    expect(ledger.changes).toEqual([]);
    expect(ledger.size).toBe(29 + 20);
  });

  it('replacing a stretch it covered finds what the platform added, changed and removed there, for one account', () => {
    const ledger = covering([...history(20, 'acc_1'), row(30, 'acc_2')]);
    const listed = history(20, 'acc_1').filter((kept) => kept._id !== 'trans_0007');
    listed[0] = row(20, 'acc_1', { description: 'now with a merchant' });
    listed.push(row(21.5, 'acc_1'));
    ledger.replaceStretch('acc_1', listed, null, undefined);
    expect(ledger.changes.map((change) => [change.kind, change.id])).toEqual([
      ['removed', 'trans_0007'],
      ['modified', 'trans_0020'],
      ['added', `trans_${String(21.5).padStart(4, '0')}`],
    ]);
    expect(ledger.find('trans_0030')).toBeDefined(); // another account's rows are untouched
  });

  it('after dropping its oldest block (the user\u2019s cap), covers only down to the oldest row it kept', () => {
    const ledger = covering(history(BLOCK_MAX_ROWS * 2 + 10));
    ledger.write(); // split into blocks
    ledger.meta.syncFrom = null;
    expect(ledger.dropOldestBlock()).toBe(true);
    const oldest = ledger.rows().at(-1)!;
    expect(ledger.meta.all).toEqual(keyOf(oldest));
    expect(ledger.meta.syncFrom).toEqual(keyOf(oldest));
  });
});

describe('a page from the ledger', () => {
  it('serves only covered rows, resumes after a row\u2019s key, and asks to be extended where it must reach deeper', async () => {
    const ledger = new Ledger(emptyMeta('e1', 0), new Map());
    ledger.replaceStretch(undefined, history(300).slice(0, 100), keyOf(row(201)), undefined); // rows 300..201
    const { meta, read } = written(ledger);
    const first = await selectPage(meta, read, { first: 50 });
    expect(first).toMatchObject({ hasNextPage: true, extend: false });
    expect(ids(first.rows)).toEqual(ids(history(300).slice(0, 50)));
    const second = await selectPage(meta, read, { first: 50, after: keyOf(first.rows.at(-1)!) });
    expect(ids(second.rows)).toEqual(ids(history(300).slice(50, 100)));
    expect(second).toMatchObject({ hasNextPage: true, extend: false }); // exactly the covered rows: more may follow
    const third = await selectPage(meta, read, { first: 50, after: keyOf(second.rows.at(-1)!) });
    expect(third).toEqual({ rows: [], hasNextPage: true, extend: true });
    // A window that ends within the coverage needs nothing more.
    const window = await selectPage(meta, read, { first: 50, start: 250 * DAY });
    expect(window).toMatchObject({ hasNextPage: false, extend: false });
    expect(ids(window.rows)).toEqual(ids(history(300).slice(0, 50)));
    // One account's page is filtered from the same rows.
    expect((await selectPage(meta, read, { first: 5, accountId: 'acc_2' })).rows).toEqual([]);
  });
});

describe('net changes for sync', () => {
  it('folds a stretch of the log into one change per id, as the client must apply it', () => {
    const change = (kind: 'added' | 'modified' | 'removed', id: string, at = 10) => ({
      kind,
      id,
      accountId: 'acc_1',
      at,
    });
    expect(
      netChanges(
        [
          change('added', 'a'),
          change('modified', 'a'),
          change('added', 'b'),
          change('removed', 'b'),
          change('removed', 'c'),
          change('added', 'c'),
          change('modified', 'd'),
          change('removed', 'e'),
          change('modified', 'f', 1), // moved out of the window
        ],
        5,
      ),
    ).toEqual({
      added: ['a'],
      modified: ['c', 'd'],
      removed: [
        { id: 'e', accountId: 'acc_1' },
        { id: 'f', accountId: 'acc_1' },
      ],
    });
  });
});

describe('the ledger at the user\u2019s cap', () => {
  it('keeps its newest rows and lets the oldest go (coverage rising with them) rather than dropping everything', async () => {
    let now = 1_000_000;
    const store = createMemoryUserDataStore({
      maxAgeMs: 60_000,
      retentionMs: 120_000,
      userMaxBytes: 40_000,
      budgetBytes: 1 << 30,
      clock: () => now,
    });
    const access = new LedgerAccess(store, () => randomBytes(4).toString('hex'));
    const user = 'user_1';
    const at = await access.snapshot(user);
    const ledger = await access.whole(user, at);
    const rows = history(3 * BLOCK_MAX_ROWS).map((kept) => ({ ...kept, description: 'x'.repeat(40) }));
    ledger.replaceStretch(undefined, rows, null, undefined);
    ledger.write(); // in blocks
    expect(await access.save(user, at, ledger)).toMatchObject({ outcome: 'kept' });
    now += 1;
    const kept = await access.snapshot(user, { topics: [TOPIC.ledger] });
    const whole = await access.whole(user, kept);
    expect(whole.size).toBeGreaterThan(0);
    expect(whole.size).toBeLessThan(rows.length);
    expect(ids(whole.rows())).toEqual(ids(rows.slice(0, whole.size))); // the newest, in order
    expect(kept.meta!.all).toEqual(keyOf(whole.rows().at(-1)!));
  });
});
