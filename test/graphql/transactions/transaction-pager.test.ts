import { describe, expect, it } from 'vitest';
import { decodeCursor } from '../../../src/graphql/transactions/transaction-cursor.js';
import { readTransactions } from '../../../src/graphql/transactions/transaction-pager.js';
import type { PlatformTransaction } from '../../../src/upstream/platform-types.js';

const row = (n: number): PlatformTransaction => ({
  _id: `trans_${n}`,
  _account: 'acc_1',
  _connection: 'conn_1',
  date: '2026-11-01T00:00:00.000Z',
  description: `row ${n}`,
  amount: -n,
  type: 'EFTPOS',
});

describe('readTransactions', () => {
  it('gives each row a cursor just after it, encoded when read, with no accessor on the row itself', async () => {
    const pages: Record<string, { items: PlatformTransaction[]; next: string | null }> = {
      first: { items: [row(1), row(2)], next: 'second' },
      second: { items: [row(3), row(4)], next: null },
    };
    const readPage = (_filter: unknown, cursor: string | null) => Promise.resolve(pages[cursor ?? 'first']!);
    const filter = {};
    const slice = await readTransactions(readPage, filter, 3, { upstreamCursor: null, offset: 0 });

    expect(slice.rows.map((entry) => entry.row._id)).toEqual(['trans_1', 'trans_2', 'trans_3']);
    expect(slice.hasNextPage).toBe(true);
    expect(slice.rows.map((entry) => decodeCursor(entry.cursor, filter))).toEqual([
      { upstreamCursor: null, offset: 1 },
      { upstreamCursor: 'second', offset: 0 },
      { upstreamCursor: 'second', offset: 1 },
    ]);
    // V8 keeps an accessor defined on an object in the old generation, and the page its getter
    // reaches then survives every young collection: the lazy cursor is the row class's getter.
    const ownAccessors = slice.rows.flatMap((entry) =>
      Object.values(Object.getOwnPropertyDescriptors(entry)).filter((descriptor) => descriptor.get !== undefined),
    );
    expect(ownAccessors).toEqual([]);
  });
});
