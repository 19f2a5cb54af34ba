import type { IncomingMessage, ServerResponse } from 'node:http';
import type { GraphQLFormattedError } from 'graphql';
import { sendJson } from '@open-finance-gateway/common/http/respond';
import { httpRefusal, type Refusal } from './refusal-table.js';

/** Media types a browser may POST without a preflight (Apollo Server's CSRF prevention uses the same list). */
const SIMPLE_CONTENT_TYPES = new Set(['application/x-www-form-urlencoded', 'multipart/form-data', 'text/plain']);
/** Headers whose presence proves a preflight was made (Apollo Server's defaults). */
const PREFLIGHT_HEADERS = ['x-apollo-operation-name', 'apollo-require-preflight'];

/**
 * Apollo Server's CSRF prevention, applied at the edge of every GraphQL request over HTTP (Apollo
 * keeps its own on too): a request a browser could send cross-site without a preflight (no
 * content type, or a "simple" one, and no preflight header) is refused. Apollo Client and
 * graphql-sse's client POST JSON, so they pass; a plain `EventSource` (a GET with no header of
 * its own) does not.
 */
export function csrfRefused(req: IncomingMessage): boolean {
  const contentType = req.headers['content-type'];
  if (contentType !== undefined) {
    const essence = contentType.split(';')[0]!.trim().toLowerCase();
    if (!SIMPLE_CONTENT_TYPES.has(essence)) return false;
  }
  return !PREFLIGHT_HEADERS.some((name) => (req.headers[name]?.length ?? 0) > 0);
}

/** Response headers of every stream: proxies (nginx: X-Accel-Buffering) must pass each part on at once. */
export const STREAM_HEADERS = { 'cache-control': 'no-cache', 'x-accel-buffering': 'no' } as const;

/**
 * An answer of GraphQL errors before anything executed, in the media type the client accepts
 * (Apollo Client 4 and urql read a 4xx `application/graphql-response+json` body as a GraphQL
 * result, with its codes). A body nobody will read would hold the TCP connection until the
 * request deadline: it is closed.
 */
export function answerErrors(
  req: IncomingMessage,
  res: ServerResponse,
  status: number,
  errors: readonly GraphQLFormattedError[],
  headers: Record<string, string> = {},
): void {
  const graphQLResponse = (req.headers.accept ?? '').includes('application/graphql-response+json');
  sendJson(
    res,
    status,
    { errors },
    {
      ...(graphQLResponse ? { 'content-type': 'application/graphql-response+json; charset=utf-8' } : {}),
      ...(req.complete ? {} : { connection: 'close' }),
      ...headers,
    },
  );
}

/** A refusal of the table, answered on HTTP: its status, its headers, its coded errors. */
export function answerRefusal(req: IncomingMessage, res: ServerResponse, refusal: Refusal): void {
  const { status, headers, errors } = httpRefusal(refusal);
  answerErrors(req, res, status, errors, headers);
}
