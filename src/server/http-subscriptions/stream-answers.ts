import type { IncomingMessage, ServerResponse } from 'node:http';
import type { GraphQLFormattedError } from 'graphql';
import { sendJson } from '@open-finance-gateway/common/http/respond';

/** Media types a browser may POST without a preflight (Apollo Server's CSRF prevention uses the same list). */
const SIMPLE_CONTENT_TYPES = new Set(['application/x-www-form-urlencoded', 'multipart/form-data', 'text/plain']);
/** Headers whose presence proves a preflight was made (Apollo Server's defaults). */
const PREFLIGHT_HEADERS = ['x-apollo-operation-name', 'apollo-require-preflight'];

/**
 * Apollo Server's CSRF prevention, for the streams it does not see: a request a browser could
 * send cross-site without a preflight (no content type, or a "simple" one, and no preflight
 * header) is refused. graphql-sse's client and Apollo Client POST JSON, so they pass; a plain
 * `EventSource` (a GET with no header of its own) does not.
 */
export function csrfRefused(req: IncomingMessage): boolean {
  const contentType = req.headers['content-type'];
  if (contentType !== undefined) {
    const essence = contentType.split(';')[0]!.trim().toLowerCase();
    if (!SIMPLE_CONTENT_TYPES.has(essence)) return false;
  }
  return !PREFLIGHT_HEADERS.some((name) => (req.headers[name]?.length ?? 0) > 0);
}

export const CSRF_MESSAGE =
  "This operation has been blocked as a potential Cross-Site Request Forgery (CSRF). Send 'content-type: application/json' or a non-empty 'apollo-require-preflight' header.";

/** Response headers of every stream: proxies (nginx: X-Accel-Buffering) must pass each part on at once. */
export const STREAM_HEADERS = { 'cache-control': 'no-cache', 'x-accel-buffering': 'no' } as const;

/**
 * An answer before any stream opened, in the media type the client accepts (Apollo Client 4
 * reads a 4xx `application/graphql-response+json` body as a GraphQL result, with its codes).
 */
export function answerErrors(
  req: IncomingMessage,
  res: ServerResponse,
  status: number,
  errors: readonly GraphQLFormattedError[],
): void {
  const graphQLResponse = (req.headers.accept ?? '').includes('application/graphql-response+json');
  sendJson(
    res,
    status,
    { errors },
    {
      ...(graphQLResponse ? { 'content-type': 'application/graphql-response+json; charset=utf-8' } : {}),
      ...(req.complete ? {} : { connection: 'close' }),
      'cache-control': 'no-store',
    },
  );
}
