import { createHash } from 'node:crypto';
import type { TransactionFilter } from '../../upstream/core-client.js';

/**
 * A row's place in a list of settled transactions, newest first (its posting instant, ms, then its
 * id): the gateway's own cursor. The next page starts right after that row, wherever rows that
 * arrive or leave meanwhile put it, so no row is shown twice and none is skipped. Bound to the
 * filter it was made for, so a cursor cannot silently be reused with other dates or another
 * account.
 */
export interface TransactionPosition {
  at: number;
  id: string;
}

function fingerprint(filter: TransactionFilter): string {
  return createHash('sha256')
    .update(JSON.stringify([filter.accountId ?? null, filter.start ?? null, filter.end ?? null]))
    .digest('base64url')
    .slice(0, 12);
}

export function encodeCursor(position: TransactionPosition, filter: TransactionFilter): string {
  return cursorEncoder(filter)(position);
}

/** Encodes positions for one filter, hashing the filter once (and only if a cursor is wanted). */
export function cursorEncoder(filter: TransactionFilter): (position: TransactionPosition) => string {
  let print: string | undefined;
  return (position) =>
    Buffer.from(JSON.stringify(['k', position.at, position.id, (print ??= fingerprint(filter))])).toString('base64url');
}

/** The position a cursor names; undefined when it is malformed, from another filter, or from a version before these cursors. */
export function decodeCursor(cursor: string, filter: TransactionFilter): TransactionPosition | undefined {
  try {
    const [kind, at, id, print] = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8')) as unknown[];
    if (kind !== 'k' || typeof at !== 'number' || !Number.isFinite(at) || typeof id !== 'string') return undefined;
    return print === fingerprint(filter) ? { at, id } : undefined;
  } catch {
    return undefined;
  }
}
