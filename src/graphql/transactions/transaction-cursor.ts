import { createHash } from 'node:crypto';
import type { TransactionFilter } from '../../upstream/core-client.js';

/**
 * A position in the platform's transaction list: the upstream page's cursor (null for the first
 * page) and how many rows of that page were already returned. Bound to the filter it was made
 * for, so a cursor cannot silently be reused with other dates or another account.
 */
export interface TransactionPosition {
  upstreamCursor: string | null;
  offset: number;
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
    Buffer.from(JSON.stringify([position.upstreamCursor, position.offset, (print ??= fingerprint(filter))])).toString(
      'base64url',
    );
}

/** The position a cursor names; undefined when it is malformed or was made for another filter. */
export function decodeCursor(cursor: string, filter: TransactionFilter): TransactionPosition | undefined {
  try {
    const [upstreamCursor, offset, print] = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8')) as unknown[];
    const validCursor = upstreamCursor === null || typeof upstreamCursor === 'string';
    if (
      !validCursor ||
      typeof offset !== 'number' ||
      !Number.isInteger(offset) ||
      offset < 0 ||
      print !== fingerprint(filter)
    )
      return undefined;
    return { upstreamCursor: upstreamCursor, offset };
  } catch {
    return undefined;
  }
}
