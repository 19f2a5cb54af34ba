import type { IncomingMessage, ServerResponse } from 'node:http';
import { sendJson } from '@open-finance-gateway/common/http/respond';

/** Request headers a frontend's GraphQL client may send (Apollo Client, urql, graphql-ws' HTTP peers). */
const ALLOWED_HEADERS =
  'content-type, accept, apollo-require-preflight, x-apollo-operation-name, apollographql-client-name, apollographql-client-version, x-request-id';
/** How long a browser may reuse a preflight answer. */
const PREFLIGHT_MAX_AGE_SECONDS = 600;

/** Routes a frontend on another allowed origin calls with `fetch` (credentials included). */
function servesCors(pathname: string): boolean {
  return pathname === '/graphql' || pathname === '/graphql/stream' || pathname.startsWith('/auth/');
}

/**
 * CORS for the origins in ALLOWED_ORIGINS (and the public origin): exact origins, credentials
 * allowed, preflights answered and cached for 10 minutes. Any other origin gets no CORS header, so
 * its page cannot read responses; its state-changing requests are refused anyway by the origin
 * policy. Returns true when the request was a preflight and has been answered.
 */
export function handleCors(
  req: IncomingMessage,
  res: ServerResponse,
  pathname: string,
  allowed: ReadonlySet<string>,
): boolean {
  if (!servesCors(pathname)) return false;
  res.setHeader('vary', 'Origin');
  const origin = req.headers.origin;
  const preflight = req.method === 'OPTIONS' && req.headers['access-control-request-method'] !== undefined;
  if (origin === undefined || !allowed.has(origin)) {
    if (!preflight) return false;
    sendJson(res, 403, {
      errors: [
        {
          message: 'This origin may not call the gateway; add it to ALLOWED_ORIGINS.',
          extensions: { code: 'FORBIDDEN', reason: 'ORIGIN_NOT_ALLOWED' },
        },
      ],
    });
    return true;
  }
  res.setHeader('access-control-allow-origin', origin);
  res.setHeader('access-control-allow-credentials', 'true');
  if (!preflight) return false;
  res.writeHead(204, {
    'access-control-allow-methods': 'GET, POST',
    'access-control-allow-headers': ALLOWED_HEADERS,
    'access-control-max-age': String(PREFLIGHT_MAX_AGE_SECONDS),
  });
  res.end();
  return true;
}
