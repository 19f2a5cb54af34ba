import type { ExecutionResult } from 'graphql';
import { FAN_OUT_SLICE } from '../event-log/fan-out.js';

/** How long an event's result is kept for subscriptions that execute it late (one slow socket). */
const KEEP_MS = 5_000;

/**
 * Identical subscriptions execute an event once: subscriptions of one user with the same document,
 * variables and operation name, given the same event (by cursor), share one execution and its
 * result object (Apollo Router deduplicates subscriptions the same way). A thousand such sockets
 * cost one execution, one set of upstream reads and one enrichment batch. The result is handed
 * out in slices, the event loop free between them, so the frames of one event never stall other
 * work. Keys are dropped a few seconds after the event.
 */
export function createSharedExecutions(options: { sliceSize?: number; keepMs?: number } = {}) {
  const sliceSize = options.sliceSize ?? FAN_OUT_SLICE;
  const entries = new Map<
    string,
    { outcome?: Promise<ExecutionResult>; waiting: Array<() => void>; settled: boolean }
  >();

  function resumeWaiting(entry: { waiting: Array<() => void> }): void {
    for (const resume of entry.waiting.splice(0, sliceSize)) resume();
    if (entry.waiting.length > 0) setImmediate(() => resumeWaiting(entry));
  }

  return {
    /** `execute` runs for the first subscription with this key; the others get its result. */
    run(key: string, execute: () => Promise<ExecutionResult>): Promise<ExecutionResult> {
      let entry = entries.get(key);
      if (!entry) {
        const created = {
          outcome: undefined as Promise<ExecutionResult> | undefined,
          waiting: [] as Array<() => void>,
          settled: false,
        };
        created.outcome = execute();
        void created.outcome
          .then(
            () => undefined,
            () => undefined,
          )
          .then(() => {
            created.settled = true;
            resumeWaiting(created);
          });
        entries.set(key, created);
        setTimeout(() => entries.delete(key), options.keepMs ?? KEEP_MS).unref();
        entry = created;
      }
      if (entry.settled) return entry.outcome!;
      const { outcome, waiting } = entry;
      return new Promise<void>((resume) => waiting.push(resume)).then(() => outcome!);
    },
    get size() {
      return entries.size;
    },
  };
}

export type SharedExecutions = ReturnType<typeof createSharedExecutions>;
