/**
 * What may still add lookups to the enrichment call forming now: GraphQL requests in flight that
 * have not yet queued their lookups, and TCP connections just accepted whose first request has not
 * arrived yet (on loopback or a LAN that is a few milliseconds; a request on its way). Each is
 * counted under a key (the request's scope, the socket) from `count` until `uncount`, which the
 * HTTP edge also calls when the response ends or the connection closes. The batcher sends a call
 * as soon as nothing is counted, since nothing could join it by waiting.
 */
export class JoinableRequests {
  private readonly counted = new Set<object>();
  private readonly quiet: Array<() => void> = [];

  get pending(): number {
    return this.counted.size;
  }

  /** Calls `listener` each time the count falls to zero. */
  onQuiet(listener: () => void): void {
    this.quiet.push(listener);
  }

  count(key: object): void {
    this.counted.add(key);
  }

  /** Stops counting `key` (uncounted already, or never counted: nothing happens). */
  uncount(key: object): void {
    if (this.counted.delete(key) && this.counted.size === 0) for (const listener of this.quiet) listener();
  }
}

/**
 * What one GraphQL request (or subscription event) has in flight upstream. The enrichment loader
 * dispatches only when the request is idle: no platform read is in flight whose answer could
 * still produce lookups (a transactions page whose rows each want `enrichment`), and the
 * resolvers waiting on the last read have run. So every lookup of a request, whatever the shape of
 * its document, goes out in one batch (split only by the batch limit). The response is sent only
 * when every field is done anyway, so waiting for idle costs no end-to-end latency.
 */
export class RequestActivity {
  private inFlight = 0;
  private waiting: Array<() => void> = [];

  /**
   * `queued`: gives up this request's place among the joinable requests once its lookups are with
   * the batcher (it adds nothing more to the call forming now).
   */
  constructor(readonly lookupsQueued: () => void = () => undefined) {}

  /** Runs an upstream call, counting it as in flight until it settles. */
  track<T>(call: () => Promise<T>): Promise<T> {
    this.inFlight += 1;
    let settled: Promise<T>;
    try {
      settled = call();
    } catch (error) {
      settled = Promise.reject(error);
    }
    return settled.finally(() => {
      this.inFlight -= 1;
      if (this.inFlight === 0) for (const resume of this.waiting.splice(0)) resume();
    });
  }

  /**
   * Calls back once nothing is in flight. The check runs after a turn of the event loop
   * (setImmediate), so the resolvers resumed by the last read have added their lookups, or started
   * another read, by then; if a read started, it waits for that one too.
   */
  whenIdle(callback: () => void): void {
    const check = () =>
      setImmediate(() => {
        if (this.inFlight > 0) this.waiting.push(check);
        else callback();
      });
    check();
  }
}
