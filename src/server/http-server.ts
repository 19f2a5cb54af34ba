import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { Logger } from '../lib/logger.js';
import { redirect, sendJson } from '../lib/http/respond.js';
import type { Router } from '../lib/http/router.js';
import { wantsHtml } from './graphiql/graphiql-routes.js';

export interface GatewayHttpServerOptions {
  router: Router;
  graphql: (req: IncomingMessage, res: ServerResponse, url: URL) => Promise<void>;
  /** Undefined when GraphiQL is disabled. */
  graphiql: ((req: IncomingMessage, res: ServerResponse) => Promise<void>) | undefined;
  logger: Logger;
}

/**
 * The gateway's HTTP entry point: /graphql (GraphQL or GraphiQL by content negotiation), then the
 * fixed routes. Logs one line per request: method, path without query (the OAuth callback's query
 * carries a code), status and duration.
 */
export function createGatewayHttpServer(options: GatewayHttpServerOptions): Server {
  return createServer((req, res) => {
    const started = performance.now();
    const url = new URL(req.url ?? '/', 'http://gateway.invalid');
    res.on('finish', () => {
      options.logger.info({ method: req.method, path: url.pathname, status: res.statusCode, ms: Math.round(performance.now() - started) }, 'http request');
    });
    dispatch(req, res, url).catch((error: unknown) => {
      options.logger.error({ err: error, path: url.pathname }, 'request handler failed');
      if (!res.headersSent) sendJson(res, 500, { errors: [{ message: 'Internal server error', extensions: { code: 'INTERNAL_SERVER_ERROR' } }] });
      else res.destroy();
    });
  });

  async function dispatch(req: IncomingMessage, res: ServerResponse, url: URL): Promise<void> {
    if (url.pathname === '/graphql') {
      if (options.graphiql && wantsHtml(req)) return options.graphiql(req, res);
      if (req.method !== 'GET' && req.method !== 'POST') {
        return sendJson(res, 405, { errors: [{ message: 'Use GET or POST.', extensions: { code: 'BAD_REQUEST' } }] }, { allow: 'GET, POST' });
      }
      return options.graphql(req, res, url);
    }
    if (url.pathname === '/') return redirect(res, '/graphql');
    if (url.pathname === '/healthz') return sendJson(res, 200, { status: 'ok' });
    if (url.pathname === '/favicon.ico') {
      res.writeHead(204, { 'cache-control': 'public, max-age=86400' });
      return void res.end();
    }
    const match = options.router.match(req.method ?? 'GET', url.pathname);
    if (match === undefined) return sendJson(res, 404, { error: 'Not found' });
    if (match === 'methodNotAllowed') return sendJson(res, 405, { error: 'Method not allowed' });
    await match.handler({ req, res, url, params: match.params });
  }
}
