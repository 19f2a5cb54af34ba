import { createSourceEventStream, execute, type ExecutionArgs, type ExecutionResult } from 'graphql';
import { inLinkedSpan } from '../lib/tracing.js';
import type { SharedExecutions } from './shared-executions.js';

/** How one event is executed for one subscription. */
export interface EventExecution {
  /** A fresh context for this event. Called only if this subscription executes it itself. */
  context(): unknown;
  /** Subscriptions with the same key share one execution of the event; undefined: not shared. */
  shareKey: string | undefined;
}

function isAsyncIterable(value: unknown): value is AsyncIterable<unknown> {
  return typeof value === 'object' && value !== null && Symbol.asyncIterator in value;
}

/**
 * Like graphql-js's `subscribe`, but each event executes with a context of its own, so loaders,
 * caches and per-request budgets (the enrichment lookup limit) are per event, as for an HTTP
 * request, instead of living as long as the socket. The subscription's own context (which holds
 * the user's event log) is used only to open the event source. Identical subscriptions share
 * one execution of each event (see shared-executions).
 */
export async function subscribePerEvent(
  args: ExecutionArgs,
  forEvent: (event: unknown) => EventExecution,
  shared: SharedExecutions,
): Promise<AsyncIterableIterator<ExecutionResult> | ExecutionResult> {
  const source = await createSourceEventStream(args);
  if (!isAsyncIterable(source)) return source;
  const events = source[Symbol.asyncIterator]();
  const onEvent = async (event: IteratorResult<unknown>): Promise<IteratorResult<ExecutionResult>> => {
    if (event.done) return { done: true, value: undefined };
    const how = forEvent(event.value);
    const traceparent = (event.value as { traceparent?: unknown } | null)?.traceparent;
    const run = () =>
      inLinkedSpan('graphql subscription event', typeof traceparent === 'string' ? traceparent : undefined, async () =>
        execute({ ...args, rootValue: event.value, contextValue: how.context() }),
      );
    return { done: false, value: await (how.shareKey === undefined ? run() : shared.run(how.shareKey, run)) };
  };
  const results: AsyncIterableIterator<ExecutionResult> & {
    throw(error: unknown): Promise<IteratorResult<ExecutionResult>>;
  } = {
    // Not async: an idle subscription waits here for its life, and a suspended async frame
    // costs several hundred bytes per socket; a pending promise and a shared callback, less.
    next() {
      return events.next().then(onEvent);
    },
    async return() {
      await events.return?.();
      return { done: true, value: undefined };
    },
    async throw(error) {
      await events.return?.();
      throw error;
    },
    [Symbol.asyncIterator]() {
      return results;
    },
  };
  return results;
}
