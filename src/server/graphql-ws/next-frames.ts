import type { ExecutionResult, FormattedExecutionResult } from 'graphql';

/**
 * A result's payload as JSON, kept as long as the result object lives. Identical subscriptions
 * share one result object per event (shared-executions), so a thousand sockets serialise it
 * once, not a thousand times.
 */
const payloadJson = new WeakMap<ExecutionResult, string>();

/** What graphql-ws puts in a `next` frame when the gateway does not replace the result: the errors last, as JSON. */
function defaultPayloadJson(result: ExecutionResult): string {
  if (result.errors) {
    const { errors, ...rest } = result;
    return JSON.stringify({ ...rest, errors: errors.map((error) => error.toJSON()) });
  }
  let json = payloadJson.get(result);
  if (json === undefined) payloadJson.set(result, (json = JSON.stringify(result)));
  return json;
}

/**
 * A `next` frame, byte for byte what graphql-ws's `stringifyMessage({ id, type: 'next', payload })`
 * writes: the frames of one event differ only in their id, so the payload is spliced in as it was
 * serialised once. `replaced`: the payload the gateway formatted instead (a result with errors).
 */
export function nextFrame(id: string, result: ExecutionResult, replaced?: FormattedExecutionResult): string {
  const payload = replaced ? JSON.stringify(replaced) : defaultPayloadJson(result);
  return `{"id":${JSON.stringify(id)},"type":"next","payload":${payload}}`;
}
