import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import { sendJson } from '@open-finance-gateway/common/http/respond';
import type { Logger } from '@open-finance-gateway/common/logger';
import { requestIdFor, RequestScope } from '../../lib/request-scope.js';
import { StoreUnavailableError } from '../../lib/store-unavailable.js';
import { inServerSpan } from '../../lib/tracing.js';
import { dispatch, routeLabel, type DispatchOptions } from './request-dispatch.js';

export interface GatewayHttpServerOptions extends DispatchOptions {
  logger: Logger;
  /** The lifecycle phase (draining: every response asks its client to reconnect). */
  readiness: () => 'ready' | 'starting' | 'draining' | 'unavailable';
  /** Take `x-request-id` from the request (a proxy in front sets it) instead of making one. */
  trustRequestIdHeader: boolean;
  /** The public URL is https: every response tells browsers to use nothing else (HSTS). */
  strictTransportSecurity?: boolean;
  /** Told of every finished request, with its route (a known path, or `unmatched`: never free text). */
  onRequest?: (method: string, route: string, status: number, seconds: number) => void;
  /**
   * What a shared enrichment call waits for (the loaders' JoinableRequests): a just-accepted TCP
   * connection until its first request arrives, a /graphql request until its response ends.
   */
  joinable?: { count(key: object): void; uncount(key: object): void };
  limits: {
    headersTimeoutMs: number;
    requestTimeoutMs: number;
    maxTcpConnections: number;
  };
}

/**
 * node:http checks its header and request deadlines on this interval (30 s by default), so a
 * dripping client would be held up to that long past its deadline.
 */
const DEADLINE_CHECK_INTERVAL_MS = 500;

/** A year, subdomains included: what the accreditation rules' "encrypted client traffic" asks of a web app. */
const HSTS = 'max-age=31536000; includeSubDomains';

/**
 * The gateway's HTTP entry point: /graphql (GraphQL or GraphiQL by content negotiation), then the
 * fixed routes. Logs one line per request: method, path without query (the OAuth callback's query
 * carries a code), status and duration.
 */
export function createGatewayHttpServer(options: GatewayHttpServerOptions): Server {
  // The access line's fields are fixed and carry no credential (method, path without query, status,
  // duration, ids), so it skips redaction, which took three quarters of each line's cost (about 8 µs).
  const serving: Serving = { ...options, accessLog: options.logger.child({}, { redact: { paths: [] } }) };
  const server = createServer(
    {
      headersTimeout: options.limits.headersTimeoutMs,
      requestTimeout: options.limits.requestTimeoutMs,
      connectionsCheckingInterval: DEADLINE_CHECK_INTERVAL_MS,
      // Small GraphQL and webhook requests; a larger header block is not a browser's.
      maxHeaderSize: 16 * 1024,
    },
    (req, res) => receive(serving, req, res),
  );
  // Past the cap, new connections are dropped at accept (WebSockets count too).
  server.maxConnections = options.limits.maxTcpConnections;
  logDrops(server, options);
  const joinable = options.joinable;
  if (joinable) {
    // One listener for every socket, not a closure each: thousands of idle sockets stay lean.
    const uncountOnClose = function (this: Socket) {
      joinable.uncount(this);
    };
    server.on('connection', (socket: Socket) => {
      joinable.count(socket);
      socket.on('close', uncountOnClose); // not once(): it wraps each listener in a closure
    });
    server.on('upgrade', (req: IncomingMessage) => joinable.uncount(req.socket));
  }
  return server;
}

/** The options, and the logger of the access lines. */
interface Serving extends GatewayHttpServerOptions {
  accessLog: Logger;
}

/** A request arrives: its id, HSTS, and a server span around all it does. */
function receive(options: Serving, req: IncomingMessage, res: ServerResponse): void {
  const requestId = requestIdFor(req.headers['x-request-id'], options.trustRequestIdHeader);
  res.setHeader('x-request-id', requestId);
  if (options.strictTransportSecurity) res.setHeader('strict-transport-security', HSTS);
  const url = new URL(req.url ?? '/', 'http://gateway.invalid');
  const route = routeLabel(options.router, req.method ?? 'GET', url.pathname);
  const scope = new RequestScope(requestId, options.logger);
  countJoinable(options, req, res, scope, url);
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
    handle(options, { req, res, scope, url, route });
  });
}

/** A GraphQL request counts as joinable from here (the request context stops it once it has queued). */
function countJoinable(
  options: GatewayHttpServerOptions,
  req: IncomingMessage,
  res: ServerResponse,
  scope: RequestScope,
  url: URL,
): void {
  const joinable = options.joinable;
  if (!joinable) return;
  if (url.pathname === '/graphql') {
    joinable.count(scope);
    res.once('close', () => joinable.uncount(scope));
  }
  joinable.uncount(req.socket);
}

interface Exchange {
  req: IncomingMessage;
  res: ServerResponse;
  scope: RequestScope;
  url: URL;
  route: string;
}

function handle(options: Serving, exchange: Exchange): void {
  const { req, res, scope, url } = exchange;
  // While draining, every response asks its client to reconnect, which the balancer sends elsewhere.
  if (options.readiness() === 'draining') res.setHeader('connection', 'close');
  logWhenFinished(options, exchange);
  dispatch(options, req, res, url, scope).catch((error: unknown) => answerFailure(exchange, error));
}

/** One line and one metric per request, once its response is sent. */
function logWhenFinished(options: Serving, { req, res, scope, url, route }: Exchange): void {
  const started = performance.now();
  res.on('finish', () => {
    const elapsed = performance.now() - started;
    options.accessLog.info(
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
}

/** A handler threw: 503 (retryable) when the shared store failed, else 500; cut if the answer had begun. */
function answerFailure({ res, scope, url }: Exchange, error: unknown): void {
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
}

function logDrops(server: Server, options: GatewayHttpServerOptions): void {
  let lastDropLog = 0;
  server.on('drop', () => {
    // Once per 10 s at most: a flood of drops must not become a flood of log lines.
    if (performance.now() - lastDropLog < 10_000) return;
    lastDropLog = performance.now();
    options.logger.warn(
      { maxTcpConnections: options.limits.maxTcpConnections },
      'TCP connections dropped: HTTP_MAX_TCP_CONNECTIONS reached',
    );
  });
}
