import type { LoggedEvent } from './event-log.js';

/** Subscribers handed an event between two yields to the event loop. */
export const FAN_OUT_SLICE = 50;

/**
 * One user's subscribers on this instance, and the events to hand them, in order. A few
 * subscribers are handed an event at once; many are handed it in slices, with the event loop free
 * between slices, so one event to a thousand sockets never holds up other requests for long. An
 * event is handed to everyone before the next one starts, so each subscriber sees them in order.
 */
export class FanOut {
  private readonly subscribers = new Set<(event: LoggedEvent) => void>();
  private readonly pending: LoggedEvent[] = [];
  private running = false;

  constructor(private readonly sliceSize = FAN_OUT_SLICE) {}

  get size(): number {
    return this.subscribers.size;
  }

  add(deliver: (event: LoggedEvent) => void): void {
    this.subscribers.add(deliver);
  }

  delete(deliver: (event: LoggedEvent) => void): void {
    this.subscribers.delete(deliver);
  }

  publish(event: LoggedEvent): void {
    if (!this.running && this.subscribers.size <= this.sliceSize) {
      for (const deliver of this.subscribers) deliver(event);
      return;
    }
    this.pending.push(event);
    if (!this.running) this.drain(0, [...this.subscribers]);
  }

  private drain(from: number, targets: Array<(event: LoggedEvent) => void>): void {
    this.running = true;
    const event = this.pending[0]!;
    const end = Math.min(from + this.sliceSize, targets.length);
    // A subscriber that left meanwhile is skipped; one that joined waits for the next event.
    for (let index = from; index < end; index += 1) if (this.subscribers.has(targets[index]!)) targets[index]!(event);
    if (end < targets.length) {
      setImmediate(() => this.drain(end, targets));
      return;
    }
    this.pending.shift();
    if (this.pending.length > 0) setImmediate(() => this.drain(0, [...this.subscribers]));
    else this.running = false;
  }
}
