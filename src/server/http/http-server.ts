import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { Logger } from '../../lib/logger.js';
import { redirect, sendError, sendJson } from '../../lib/http/respond.js';
import type { Router } from '../../lib/http/router.js';
import { wantsHtml } from '../graphiql/graphiql-routes.js';
import { handleCors } from './cors.js';
import { originRefused } from './origin-policy.js';
import { RequestScope, requestIdFor, type ScopedRouteRequest } from '../../lib/request-scope.js';
import { inServerSpan } from '../../lib/tracing.js';
import { StoreUnavailableError } from '../../lib/store-unavailable.js';

export interface GatewayHttpServerOptions {
  router: Router<ScopedRouteRequest>;
  graphql: (req: IncomingMessage, res: ServerResponse, url: URL, scope: RequestScope) => Promise<void>;
  /** Undefined when GraphiQL is disabled. */
  graphiql: ((req: IncomingMessage, res: ServerResponse) => Promise<void>) | undefined;
  logger: Logger;
  /** The public origin plus ALLOWED_ORIGINS; known once the server listens. */
  allowedOrigins: () => ReadonlySet<string>;
  /** The lifecycle phase (draining: every response asks its client to reconnect). */
  readiness: () => 'ready' | 'starting' | 'draining' | 'unavailable';
  /** Why `/readyz` answers 503 (its body), or undefined for 200. */
  notReady: () => Promise<{ status: string; reason?: string } | undefined>;
  /** Take `x-request-id` from the request (a proxy in front sets it) instead of making one. */
  trustRequestIdHeader: boolean;
  /** The public URL is https: every response tells browsers to use nothing else (HSTS). */
  strictTransportSecurity?: boolean;
  /** Told of every finished request, with its route (a known path, or `unmatched`: never free text). */
  onRequest?: (method: string, route: string, status: number, seconds: number) => void;
  limits: {
    headersTimeoutMs: number;
    requestTimeoutMs: number;
    maxConnections: number;
  };
}

/**
 * node:http checks its header and request deadlines on this interval (30 s by default), so a
 * dripping client would be held up to that long past its deadline.
 */
const DEADLINE_CHECK_INTERVAL_MS = 500;

/** A year, subdomains included: what the accreditation rules' "encrypted client traffic" asks of a web app. */
const HSTS = 'max-age=31536000; includeSubDomains';

/** Paths served before the router. */
const FIXED_PATHS = new Set(['/graphql', '/', '/healthz', '/readyz', '/favicon.ico']);

/**
 * The gateway's HTTP entry point: /graphql (GraphQL or GraphiQL by content negotiation), then the
 * fixed routes. Logs one line per request: method, path without query (the OAuth callback's query
 * carries a code), status and duration.
 */
export function createGatewayHttpServer(options: GatewayHttpServerOptions): Server {
  const server = createServer(
    {
      headersTimeout: options.limits.headersTimeoutMs,
      requestTimeout: options.limits.requestTimeoutMs,
      connectionsCheckingInterval: DEADLINE_CHECK_INTERVAL_MS,
      // Small GraphQL and webhook requests; a larger header block is not a browser's.
      maxHeaderSize: 16 * 1024,
    },
    (req, res) => {
      const requestId = requestIdFor(req.headers['x-request-id'], options.trustRequestIdHeader);
      res.setHeader('x-request-id', requestId);
      if (options.strictTransportSecurity) res.setHeader('strict-transport-security', HSTS);
      const url = new URL(req.url ?? '/', 'http://gateway.invalid');
      const route = routeLabel(req.method ?? 'GET', url.pathname);
      inServerSpan(`HTTP ${req.method ?? 'GET'} ${route}`, req.headers, (span) => {
        span.setAttributes({
          'http.request.method': req.method ?? 'GET',
          'http.route': route,
          'request.id': requestId,
        });
        res.on('finish', () => {
          span.setAttribute('http.response.status_code', res.statusCode);
          span.end();
        });
        handle(req, res, new RequestScope(requestId, options.logger), url, route);
      });
    },
  );

  function handle(req: IncomingMessage, res: ServerResponse, scope: RequestScope, url: URL, route: string): void {
    const started = performance.now();
    // While draining, every response asks its client to reconnect, which the balancer sends elsewhere.
    if (options.readiness() === 'draining') res.setHeader('connection', 'close');
    res.on('finish', () => {
      const elapsed = performance.now() - started;
      options.logger.info(
        {
          // Not the scope's logger: most requests write no other line, and this one needs no child.
          requestId: scope.requestId,
          method: req.method,
          path: url.pathname,
          ...(scope.operation ? { operation: scope.operation } : {}),
          status: res.statusCode,
          ms: Math.round(elapsed),
        },
        'http request',
      );
      options.onRequest?.(req.method ?? 'GET', route, res.statusCode, elapsed / 1000);
    });
    dispatch(req, res, url, scope).catch((error: unknown) => {
      if (error instanceof StoreUnavailableError) {
        // Retryable, and coded: the shared store is down or slow, nothing was half-done.
        scope.log.warn(
          { err: { message: error.message }, path: url.pathname },
          'request refused: shared store unavailable',
        );
        if (!res.headersSent)
          sendJson(
            res,
            503,
            {
              errors: [
                {
                  message: 'The service is temporarily unavailable; try again shortly.',
                  extensions: { code: 'SERVICE_UNAVAILABLE' },
                },
              ],
            },
            { 'retry-after': '5' },
          );
        else res.destroy();
        return;
      }
      scope.log.error({ err: error, path: url.pathname }, 'request handler failed');
      if (!res.headersSent)
        sendJson(res, 500, {
          errors: [{ message: 'Internal server error', extensions: { code: 'INTERNAL_SERVER_ERROR' } }],
        });
      else res.destroy();
    });
  }
  // Past the cap, new connections are dropped at accept (WebSockets count too).
  server.maxConnections = options.limits.maxConnections;
  let lastDropLog = 0;
  server.on('drop', () => {
    // Once per 10 s at most: a flood of drops must not become a flood of log lines.
    if (performance.now() - lastDropLog < 10_000) return;
    lastDropLog = performance.now();
    options.logger.warn(
      { maxConnections: options.limits.maxConnections },
      'connections dropped: MAX_CONNECTIONS reached',
    );
  });
  return server;

  /** A path the gateway serves, or `unmatched`: metrics labels stay a small, fixed set. */
  function routeLabel(method: string, pathname: string): string {
    if (FIXED_PATHS.has(pathname)) return pathname;
    const match = options.router.match(method, pathname);
    return match !== undefined && match !== 'methodNotAllowed' ? pathname : 'unmatched';
  }

  async function dispatch(req: IncomingMessage, res: ServerResponse, url: URL, scope: RequestScope): Promise<void> {
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
      if (options.graphiql && wantsHtml(req)) return options.graphiql(req, res);
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
}
