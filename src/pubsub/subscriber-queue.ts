import type { LoggedEvent } from './pubsub.js';

/** Compares two cursors of the form `<ms>-<seq>` (Redis Stream ids; the memory log uses the same). */
export function compareCursors(a: string, b: string): number {
  const [aMs, aSeq] = a.split('-').map(Number) as [number, number];
  const [bMs, bSeq] = b.split('-').map(Number) as [number, number];
  return aMs - bMs || aSeq - bSeq;
}

export const CURSOR_FORM = /^\d{1,16}-\d{1,10}$/;

/**
 * One subscriber's pending events, as an async iterator. Events already delivered (by replay) are
 * skipped by cursor, so the seam between replay and live delivery has no duplicate. Bounded: past
 * `maxQueued` the oldest is dropped and counted (issue: coalescing per object comes later).
 */
export class SubscriberQueue implements AsyncIterableIterator<LoggedEvent> {
  private readonly queue: LoggedEvent[] = [];
  private wake: (() => void) | undefined;
  private done = false;
  private lastCursor: string | undefined;
  private failure: Error | undefined;
  dropped = 0;

  constructor(
    private readonly maxQueued: number,
    private readonly onClose: () => void,
  ) {}

  push(event: LoggedEvent): void {
    if (this.done) return;
    if (this.lastCursor !== undefined && compareCursors(event.cursor, this.lastCursor) <= 0) return;
    this.lastCursor = event.cursor;
    if (this.queue.length >= this.maxQueued) {
      this.queue.shift();
      this.dropped += 1;
    }
    this.queue.push(event);
    this.wake?.();
  }

  /** Marks everything up to `cursor` as delivered (used by replay before live events flow). */
  deliveredUpTo(cursor: string | undefined): void {
    if (cursor !== undefined && (this.lastCursor === undefined || compareCursors(cursor, this.lastCursor) > 0)) this.lastCursor = cursor;
  }

  end(): void {
    this.done = true;
    this.wake?.();
  }

  /** Ends the iteration with an error once the events already queued are consumed. */
  fail(error: Error): void {
    this.failure = error;
    this.end();
  }

  async next(): Promise<IteratorResult<LoggedEvent>> {
    while (this.queue.length === 0 && !this.done) {
      await new Promise<void>((resolve) => (this.wake = resolve));
      this.wake = undefined;
    }
    if (this.queue.length === 0 && this.failure) throw this.failure;
    const value = this.queue.shift();
    return value ? { value, done: false } : { value: undefined, done: true };
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
