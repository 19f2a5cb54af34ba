import { isPaymentLike } from './platform-type-guards.js';
import type { PlatformCreation } from './platform-types.js';
import { UpstreamError } from './upstream-error.js';
import { httpStatusError } from './upstream-http.js';
import type { UpstreamRequest, UpstreamResponse } from './upstream-request.js';

/** One user's access to the core API: what every user-scoped call sends through. */
export interface UserScope {
  /** The upstream's name, for errors. */
  readonly upstream: string;
  /** Sends `request` carrying the user's bearer token and the app id header. */
  send(request: UpstreamRequest): Promise<UpstreamResponse>;
}

/** Throws for a non-2xx status, and for a 2xx whose envelope says `success: false`. */
export function ensureOk(scope: Pick<UserScope, 'upstream'>, response: UpstreamResponse, what: string): void {
  if (response.status < 200 || response.status >= 300) throw httpStatusError(scope.upstream, what, response);
  const body = response.body as { success?: unknown } | undefined;
  if (body?.success === false) throw httpStatusError(scope.upstream, what, { ...response, status: 502 });
}

export function badResponse(scope: UserScope, message: string): UpstreamError {
  return new UpstreamError(scope.upstream, 'bad_response', message);
}

/** `GET path` answering `{ item }`. */
export async function getItem(scope: UserScope, path: string): Promise<unknown> {
  const response = await scope.send({ method: 'GET', path });
  ensureOk(scope, response, `GET ${path}`);
  return (response.body as { item?: unknown } | undefined)?.item;
}

/** `GET path` answering `{ item }` with an id and a status; undefined on 404. */
export async function getOptionalItem(scope: UserScope, path: string, what: string): Promise<unknown> {
  const response = await scope.send({ method: 'GET', path });
  if (response.status === 404) return undefined;
  ensureOk(scope, response, what);
  const item = (response.body as { item?: { _id?: unknown; status?: unknown } } | undefined)?.item;
  if (typeof item?._id !== 'string' || typeof item.status !== 'string')
    throw badResponse(scope, `${what} response has no valid item`);
  return item;
}

/** `GET path` answering `{ items: [...] }`; `range` filters by creation date. */
export async function getItems(
  scope: UserScope,
  path: string,
  range?: { start?: string; end?: string },
): Promise<unknown[]> {
  const response = await scope.send({ method: 'GET', path, ...(range ? { query: { ...range } } : {}) });
  ensureOk(scope, response, `GET ${path}`);
  const items = (response.body as { items?: unknown } | undefined)?.items;
  if (!Array.isArray(items)) throw badResponse(scope, `${path} response has no items`);
  return items;
}

/** `POST path` creating a payment or transfer under an `Idempotency-Key`; never retried here. */
export async function create<T extends { _id: string; status: string }>(
  scope: UserScope,
  path: string,
  json: unknown,
  idempotencyKey: string,
): Promise<PlatformCreation<T>> {
  const response = await scope.send({
    method: 'POST',
    path,
    headers: { 'idempotency-key': idempotencyKey },
    json,
    retry: false,
  });
  ensureOk(scope, response, `POST ${path}`);
  const item = (response.body as { item?: unknown } | undefined)?.item;
  if (!isPaymentLike(item)) throw badResponse(scope, `POST ${path} response has no item`);
  return { item: item as unknown as T, replayed: response.headers['idempotent-replayed'] === 'true' };
}
