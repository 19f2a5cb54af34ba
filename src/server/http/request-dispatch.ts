import type { IncomingMessage, ServerResponse } from 'node:http';
import { redirect, sendError, sendHtml, sendJson } from '@open-finance-gateway/common/http/respond';
import type { Router } from '@open-finance-gateway/common/http/router';
import type { RequestScope, ScopedRouteRequest } from '../../lib/request-scope.js';
import { graphiqlOffPage } from '../graphiql/graphiql-off-page.js';
import { wantsHtml } from '../graphiql/graphiql-routes.js';
import { handleCors } from './cors.js';
import { originRefused } from './origin-policy.js';

/** What a request may be sent to (and, with more, the server's options: http-server.ts). */
export interface DispatchOptions {
  router: Router<ScopedRouteRequest>;
  graphql: (req: IncomingMessage, res: ServerResponse, url: URL, scope: RequestScope) => Promise<void>;
  /** Undefined when GraphiQL is disabled. */
  graphiql: ((req: IncomingMessage, res: ServerResponse) => Promise<void>) | undefined;
  /** The public origin plus ALLOWED_ORIGINS; known once the server listens. */
  allowedOrigins: () => ReadonlySet<string>;
  /** Why `/readyz` answers 503 (its body), or undefined for 200. */
  notReady: () => Promise<{ status: string; reason?: string } | undefined>;
}

/** Paths served before the router. */
const FIXED_PATHS = new Set(['/graphql', '/', '/healthz', '/readyz', '/favicon.ico']);

/** A path the gateway serves, or `unmatched`: metrics labels stay a small, fixed set. */
export function routeLabel(router: Router<ScopedRouteRequest>, method: string, pathname: string): string {
  if (FIXED_PATHS.has(pathname)) return pathname;
  const match = router.match(method, pathname);
  return match !== undefined && match !== 'methodNotAllowed' ? pathname : 'unmatched';
}

/** Where a request goes: CORS, the origin check, /graphql, the fixed paths, then the router. */
export async function dispatch(
  options: DispatchOptions,
  req: IncomingMessage,
  res: ServerResponse,
  url: URL,
  scope: RequestScope,
): Promise<void> {
  if (handleCors(req, res, url.pathname, options.allowedOrigins())) return;
  if (originRefused(req, url.pathname, options.allowedOrigins())) {
    scope.log.warn(
      { origin: String(req.headers.origin).slice(0, 200), path: url.pathname },
      'state-changing request refused: origin not allowed',
    );
    const message = 'Requests that change state are not accepted from this origin.';
    return sendJson(
      res,
      403,
      { errors: [{ message, extensions: { code: 'FORBIDDEN', reason: 'ORIGIN_NOT_ALLOWED' } }] },
      req.complete ? {} : { connection: 'close' },
    );
  }
  if (url.pathname === '/graphql') {
    if (wantsHtml(req)) {
      if (options.graphiql) return options.graphiql(req, res);
      // A browser opening the address, not a GraphQL GET (which carries a query or a document id).
      if (url.search === '') return sendHtml(res, 200, graphiqlOffPage());
    }
    if (req.method !== 'GET' && req.method !== 'POST') {
      return sendJson(
        res,
        405,
        { errors: [{ message: 'Use GET or POST.', extensions: { code: 'BAD_REQUEST' } }] },
        { allow: 'GET, POST' },
      );
    }
    return options.graphql(req, res, url, scope);
  }
  if (url.pathname === '/') return redirect(res, '/graphql');
  if (url.pathname === '/healthz') return sendJson(res, 200, { status: 'ok' });
  if (url.pathname === '/readyz') {
    const failing = await options.notReady();
    return sendJson(res, failing ? 503 : 200, failing ?? { status: 'ready' });
  }
  if (url.pathname === '/favicon.ico') {
    res.writeHead(204, { 'cache-control': 'public, max-age=86400' });
    return void res.end();
  }
  const match = options.router.match(req.method ?? 'GET', url.pathname);
  if (match === undefined) return sendError(res, 404, 'NOT_FOUND', 'Not found.');
  if (match === 'methodNotAllowed') return sendError(res, 405, 'METHOD_NOT_ALLOWED', 'Method not allowed.');
  await match.handler({ req, res, url, params: match.params, scope });
}
