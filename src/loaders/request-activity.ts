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
