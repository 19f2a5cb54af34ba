import { randomUUID } from 'node:crypto';
import type { RouteRequest } from '@open-finance-gateway/common/http/router';
import type { Logger } from '@open-finance-gateway/common/logger';

/**
 * The request being served: its id and the logger whose every line carries it. It is handed
 * along explicitly (to the GraphQL context, to route handlers, to upstream calls as
 * `x-request-id`), not kept in an `AsyncLocalStorage`: on Node 20 one of those hooks every promise
 * the process makes, which cost 4-6% of the CPU of a page of enriched transactions (measured in an
 * interleaved A/B, see the README's Performance section).
 *
 * A class, its getter on the prototype: an accessor defined on each request's object would be
 * allocated in V8's old generation and keep the request's logger alive past young collections.
 */
export class RequestScope {
  /** The GraphQL operation the request carried, once resolved (for the access log line). */
  operation: string | undefined;
  private logger: Logger | undefined;

  constructor(
    readonly requestId: string,
    private readonly root: Logger,
  ) {
    this.operation = undefined;
    this.logger = undefined;
  }

  /** The request's logger: made on first use, since most requests write only the access line. */
  get log(): Logger {
    return (this.logger ??= this.root.child({ requestId: this.requestId }));
  }

  /** Records the request's GraphQL operation (its name, or its type when anonymous), capped for logs. */
  noteOperation(operation: string): void {
    this.operation = operation.slice(0, 100);
  }
}

/** What the gateway's route handlers receive: the request, and the scope it is served in. */
export interface ScopedRouteRequest extends RouteRequest {
  scope: RequestScope;
}

/** An id a proxy may have set: short, and only characters safe in logs and headers. */
const REQUEST_ID_FORM = /^[A-Za-z0-9._:-]{8,128}$/;

/** The incoming `x-request-id` when it is trusted and well formed; otherwise a new one. */
export function requestIdFor(header: string | string[] | undefined, trustHeader: boolean): string {
  const given = Array.isArray(header) ? header[0] : header;
  return trustHeader && given !== undefined && REQUEST_ID_FORM.test(given) ? given : randomUUID();
}
