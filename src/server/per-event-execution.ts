import { createSourceEventStream, execute, type ExecutionArgs, type ExecutionResult } from 'graphql';

function isAsyncIterable(value: unknown): value is AsyncIterable<unknown> {
  return typeof value === 'object' && value !== null && Symbol.asyncIterator in value;
}

/**
 * Like graphql-js's `subscribe`, but each event executes with a context of its own, so loaders,
 * caches and per-request budgets (the enrichment lookup limit) are per event, as for an HTTP
 * request, instead of living as long as the socket. The subscription's own context (which holds
 * the user's event stream) is used only to open the source stream.
 */
export async function subscribePerEvent(args: ExecutionArgs, contextForEvent: (event: unknown) => unknown): Promise<AsyncIterableIterator<ExecutionResult> | ExecutionResult> {
  const source = await createSourceEventStream(args);
  if (!isAsyncIterable(source)) return source as ExecutionResult;
  const events = source[Symbol.asyncIterator]();
  const results: AsyncIterableIterator<ExecutionResult> & { throw(error: unknown): Promise<IteratorResult<ExecutionResult>> } = {
    async next() {
      const event = await events.next();
      if (event.done) return { done: true, value: undefined };
      return { done: false, value: await execute({ ...args, rootValue: event.value, contextValue: contextForEvent(event.value) }) };
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
