import { coalescingOf } from '@open-finance-gateway/common/webhook-events';
import type { LoggedEvent } from './event-log.js';

/**
 * `Number(cursor.slice(start, end))` without the slice when the part is a plain run of digits
 * (every cursor the logs make): each subscriber compares each event's cursor twice, so an event
 * to a thousand sockets makes two thousand comparisons.
 */
function numberIn(cursor: string, start: number, end: number): number {
  // Up to 15 digits, a number built digit by digit is exact, as Number() reads it.
  if (end <= start || end - start > 15) return Number(cursor.slice(start, end));
  let value = 0;
  for (let index = start; index < end; index += 1) {
    const digit = cursor.charCodeAt(index) - 48;
    if (digit < 0 || digit > 9) return Number(cursor.slice(start, end));
    value = value * 10 + digit;
  }
  return value;
}

/** A cursor's two numbers, as `cursor.split('-').map(Number)` reads them. */
function msOf(cursor: string): number {
  const dash = cursor.indexOf('-');
  return numberIn(cursor, 0, dash < 0 ? cursor.length : dash);
}

function seqOf(cursor: string): number {
  const dash = cursor.indexOf('-');
  if (dash < 0) return Number.NaN;
  const next = cursor.indexOf('-', dash + 1);
  return numberIn(cursor, dash + 1, next < 0 ? cursor.length : next);
}

/** Compares two cursors of the form `<ms>-<seq>` (Redis Stream ids; the memory log uses the same). */
export function compareCursors(a: string, b: string): number {
  return msOf(a) - msOf(b) || seqOf(a) - seqOf(b);
}

export const CURSOR_FORM = /^\d{1,16}-\d{1,10}$/;

/**
 * More distinct objects were pending for one subscriber than its queue holds. Nothing is dropped
 * silently: the subscription ends with this, and the client resumes after `cursor` (the last event
 * it was given) to receive everything, replayed from the log.
 */
export class EventsDroppedError extends Error {
  constructor(readonly cursor: string | undefined) {
    super(
      'Events arrived faster than this subscription read them; resubscribe with `after` set to the cursor given, to receive them all.',
    );
    this.name = 'EventsDroppedError';
  }
}

/**
 * What an event is about, when a newer one about the same thing may replace it (the registry's
 * `coalesce` rule per webhook type): payment and transfer events and account updates only say
 * "this object changed, re-read it"; transaction and income events carry the ids that changed, and
 * creations and deletions are facts of their own, so those are never folded.
 */
function coalescingKey(event: LoggedEvent): string {
  const item = event.payload.item_id;
  const rule = coalescingOf(event.type);
  const foldable = typeof item === 'string' && (rule === 'by-item' || (rule === 'updates' && event.code === 'UPDATE'));
  return foldable ? `${event.type}:${event.code === 'RECEIVED' ? 'RECEIVED:' : ''}${item}` : `event:${event.cursor}`;
}

/** The newer event, keeping every field an account update said had changed. */
function fold(older: LoggedEvent, newer: LoggedEvent): LoggedEvent {
  if (newer.type !== 'ACCOUNT') return newer;
  const fields = (event: LoggedEvent) =>
    Array.isArray(event.payload.updated_fields) ? (event.payload.updated_fields as unknown[]) : [];
  return {
    ...newer,
    payload: { ...newer.payload, updated_fields: [...new Set([...fields(older), ...fields(newer)])] },
  };
}

/**
 * One subscriber's pending events, as an async iterator. Events are signals to re-read, so a
 * burst coalesces: while an event about an object is pending, a newer one about the same object
 * replaces it (moving to the end, so cursors are handed out in increasing order), and `merged`
 * counts how many were folded. Past `maxPending` distinct objects the subscription ends with
 * EventsDroppedError, naming the cursor to resume from: never a silent loss, and no event type can
 * push another out. An event whose cursor is not after the last one taken in (or the `after` the
 * subscriber resumed from) is skipped, and `next` never hands out a cursor at or before the last
 * one it handed out: a client resuming from its last cursor can never be given an event twice.
 * While `refill` is set, an empty queue asks it for more instead of waiting (a replay read at the
 * reader's pace).
 */
export class SubscriptionQueue implements AsyncIterableIterator<LoggedEvent> {
  private readonly pending = new Map<string, LoggedEvent>();
  private wake: (() => void) | undefined;
  private done = false;
  private lastCursor: string | undefined;
  private lastDelivered: string | undefined;
  private failure: Error | undefined;
  private refilling: Promise<void> | undefined;
  merged = 0;
  /** Reads more into the queue when it is empty; cleared once events arrive by push alone. */
  refill: (() => Promise<void>) | undefined;

  constructor(
    private readonly maxPending: number,
    private readonly onClose: () => void,
    after?: string,
  ) {
    this.lastCursor = after;
    this.lastDelivered = after;
  }

  get size(): number {
    return this.pending.size;
  }

  push(event: LoggedEvent): void {
    if (this.done) return;
    if (this.lastCursor !== undefined && compareCursors(event.cursor, this.lastCursor) <= 0) return;
    this.lastCursor = event.cursor;
    const key = coalescingKey(event);
    const older = this.pending.get(key);
    if (older) {
      this.pending.delete(key);
      this.pending.set(key, fold(older, event));
      this.merged += 1;
    } else if (this.pending.size >= this.maxPending) {
      this.pending.clear();
      this.fail(new EventsDroppedError(this.lastDelivered));
      this.onClose();
      return;
    } else this.pending.set(key, event);
    this.wake?.();
  }

  /** Ends the iteration with an error once the events already queued are consumed. */
  fail(error: Error): void {
    this.failure = error;
    this.end();
  }

  end(): void {
    this.done = true;
    this.wake?.();
  }

  /**
   * Not an async function: an idle subscriber waits here for its whole life, and a suspended
   * async frame (its generator, registers and context) costs several hundred bytes per socket;
   * a pending promise and one callback cost a fraction of that.
   */
  next(): Promise<IteratorResult<LoggedEvent>> {
    for (;;) {
      if (this.pending.size === 0 && !this.done)
        return this.more().then(() => {
          this.wake = undefined;
          return this.next();
        });
      const first = this.pending.entries().next();
      if (first.done) {
        if (this.failure) return Promise.reject(this.failure);
        return Promise.resolve({ value: undefined, done: true });
      }
      const [key, value] = first.value;
      this.pending.delete(key);
      // The last line of defence of the order: never a cursor the subscriber already has.
      if (this.lastDelivered !== undefined && compareCursors(value.cursor, this.lastDelivered) <= 0) continue;
      this.lastDelivered = value.cursor;
      return Promise.resolve({ value, done: false });
    }
  }

  /** Waits for a push, or reads more when a refill is set (one read at a time). */
  private more(): Promise<void> {
    if (!this.refill) return new Promise<void>((resolve) => (this.wake = resolve));
    return this.refillOnce();
  }

  private async refillOnce(): Promise<void> {
    if (!this.refill) return;
    this.refilling ??= this.refill().finally(() => (this.refilling = undefined));
    await this.refilling.catch((error: unknown) => {
      this.fail(error instanceof Error ? error : new Error(String(error)));
      this.onClose();
    });
  }

  async return(): Promise<IteratorResult<LoggedEvent>> {
    this.end();
    this.onClose();
    return { value: undefined, done: true };
  }

  [Symbol.asyncIterator](): AsyncIterableIterator<LoggedEvent> {
    return this;
  }
}
