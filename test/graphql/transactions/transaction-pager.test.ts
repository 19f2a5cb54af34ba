import { describe, expect, it } from 'vitest';
import { decodeCursor } from '../../../src/graphql/transactions/transaction-cursor.js';
import { pagedRows } from '../../../src/graphql/transactions/transaction-pager.js';
import type { PlatformTransaction } from '../../../src/upstream/platform-types.js';

const row = (n: number): PlatformTransaction => ({
  _id: `trans_${n}`,
  _account: 'acc_1',
  _connection: 'conn_1',
  date: `2026-11-0${n}T00:00:00.000Z`,
  description: `row ${n}`,
  amount: -n,
  type: 'EFTPOS',
});

describe('pagedRows', () => {
  it('gives each row a cursor naming the row itself, encoded when read, with no accessor on the row itself', () => {
    const filter = { accountId: 'acc_1' };
    const rows = pagedRows([row(3), row(2), row(1)], filter);
    expect(rows.map((entry) => decodeCursor(entry.cursor, filter))).toEqual([
      { at: Date.parse('2026-11-03T00:00:00.000Z'), id: 'trans_3' },
      { at: Date.parse('2026-11-02T00:00:00.000Z'), id: 'trans_2' },
      { at: Date.parse('2026-11-01T00:00:00.000Z'), id: 'trans_1' },
    ]);
    // Bound to its query: another account's (or dates') query refuses it.
    expect(decodeCursor(rows[0]!.cursor, { accountId: 'acc_2' })).toBeUndefined();
    // V8 keeps an accessor defined on an object in the old generation, and the page its getter
    // reaches then survives every young collection: the lazy cursor is the row class's getter.
    const ownAccessors = rows.flatMap((entry) =>
      Object.values(Object.getOwnPropertyDescriptors(entry)).filter((descriptor) => descriptor.get !== undefined),
    );
    expect(ownAccessors).toEqual([]);
  });
});
