/** Why a cursor cannot be continued from: the app must sync from the start. */
export class SyncCursorError extends Error {
  constructor(readonly reason: 'MALFORMED' | 'EXPIRED') {
    super(
      reason === 'MALFORMED'
        ? 'This sync cursor is not one the gateway gave out: sync from the start (no cursor) and keep the cursors it returns.'
        : 'This sync cursor can no longer be continued from (the kept data was dropped or reset, or the changes since it are no longer kept): sync from the start (no cursor).',
    );
    this.name = 'SyncCursorError';
  }
}

/**
 * A position in a sync: the ledger's epoch, the window (`start`), and either a walk through the
 * rows (after key `k`, with the change log's head when the walk began) or the change log after `h`
 * (and `o` changes of the batch after it, when an answer ended inside one).
 */
export interface SyncPosition {
  e: string;
  s: number | null;
  h: number;
  k?: [number, string];
  o?: number;
}

export function encodeSyncCursor(position: SyncPosition): string {
  return Buffer.from(JSON.stringify({ v: 1, ...position })).toString('base64url');
}

export function decodeSyncCursor(cursor: string): SyncPosition {
  try {
    const value = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8')) as Partial<SyncPosition> & {
      v?: number;
    };
    const key = value.k;
    const validKey =
      key === undefined || (Array.isArray(key) && typeof key[0] === 'number' && typeof key[1] === 'string');
    const offset = value.o;
    const validOffset = offset === undefined || (Number.isInteger(offset) && offset > 0);
    if (
      value.v === 1 &&
      typeof value.e === 'string' &&
      (value.s === null || typeof value.s === 'number') &&
      Number.isInteger(value.h) &&
      value.h! >= 0 &&
      validKey &&
      validOffset
    )
      return { e: value.e, s: value.s, h: value.h!, ...(key ? { k: key } : {}), ...(offset ? { o: offset } : {}) };
  } catch {
    // fall through
  }
  throw new SyncCursorError('MALFORMED');
}
