import { AsyncLocalStorage } from 'node:async_hooks';
import { randomUUID } from 'node:crypto';

/**
 * The request being served, wherever its work continues (resolvers, loaders, upstream calls,
 * log lines), without passing it through every signature: each log line carries its id, and
 * each upstream call sends it as `x-request-id`.
 */
export interface RequestScope {
  requestId: string;
  /** The GraphQL operation the request carried, once resolved (for the access log line). */
  operation?: string;
}

const scope = new AsyncLocalStorage<RequestScope>();

/** An id a proxy may have set: short, and only characters safe in logs and headers. */
const REQUEST_ID_FORM = /^[A-Za-z0-9._:-]{8,128}$/;

export function runInRequestScope<T>(requestId: string, work: () => T): T {
  return scope.run({ requestId }, work);
}

export function currentRequestId(): string | undefined {
  return scope.getStore()?.requestId;
}

export function currentRequestScope(): RequestScope | undefined {
  return scope.getStore();
}

/** Records the request's GraphQL operation (its name, or its type when anonymous), capped for logs. */
export function noteOperation(operation: string): void {
  const store = scope.getStore();
  if (store) store.operation = operation.slice(0, 100);
}

/** The incoming `x-request-id` when it is trusted and well formed; otherwise a new one. */
export function requestIdFor(header: string | string[] | undefined, trustHeader: boolean): string {
  const given = Array.isArray(header) ? header[0] : header;
  return trustHeader && given !== undefined && REQUEST_ID_FORM.test(given) ? given : randomUUID();
}
