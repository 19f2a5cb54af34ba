import type { GatewayEventMap } from '../../src/lib/gateway-events.js';

type EventOf<K extends keyof GatewayEventMap> = GatewayEventMap[K][0];

/**
 * Keeps every gateway event it is given (from `app.events` in this process, or over IPC from a
 * gateway process) so a test can wait for one that already happened or is still to come.
 */
export class EventRecorder {
  private readonly seen = new Map<keyof GatewayEventMap, unknown[]>();
  private readonly waiters = new Set<{
    name: keyof GatewayEventMap;
    match: (event: never) => boolean;
    resolve: (event: never) => void;
  }>();

  record<K extends keyof GatewayEventMap>(name: K, event: EventOf<K>): void {
    this.all(name).push(event);
    for (const waiter of [...this.waiters]) {
      if (waiter.name !== name || !waiter.match(event as never)) continue;
      this.waiters.delete(waiter);
      waiter.resolve(event as never);
    }
  }

  /** Every event of that name so far, oldest first (the live array). */
  all<K extends keyof GatewayEventMap>(name: K): Array<EventOf<K>> {
    let events = this.seen.get(name);
    if (!events) this.seen.set(name, (events = []));
    return events as Array<EventOf<K>>;
  }

  /** The first event of that name (past or future) that matches. */
  waitFor<K extends keyof GatewayEventMap>(name: K, match: (event: EventOf<K>) => boolean = () => true) {
    const past = this.all(name).find(match);
    if (past) return Promise.resolve(past);
    return new Promise<EventOf<K>>((resolve) => this.waiters.add({ name, match: match, resolve: resolve }));
  }

  /** Resolves once `count` more events of that name (matching, if given) arrive from now on. */
  more<K extends keyof GatewayEventMap>(name: K, count: number, match: (event: EventOf<K>) => boolean = () => true) {
    let arrived = 0;
    return new Promise<void>((resolve) =>
      this.waiters.add({
        name,
        match: (event: EventOf<K>) => match(event) && ++arrived >= count,
        resolve: () => resolve(),
      }),
    );
  }
}
