import type { IncomingMessage, ServerResponse } from 'node:http';
import { sendError, sendHtml } from '@open-finance-gateway/common/http/respond';
import type { Router } from '@open-finance-gateway/common/http/router';
import { signInPage } from '../../auth/auth-pages.js';
import type { SessionManager } from '../../auth/session-manager.js';
import type { ScopedRouteRequest } from '../../lib/request-scope.js';
import { createGraphiqlAssets } from './graphiql-assets.js';
import { GRAPHIQL_CSP, graphiqlPage } from './graphiql-page.js';

/** True for a browser navigating to /graphql, as opposed to a GraphQL client's GET. */
export function wantsHtml(req: IncomingMessage): boolean {
  return req.method === 'GET' && (req.headers.accept ?? '').includes('text/html');
}

export function registerGraphiqlRoutes(
  router: Router<ScopedRouteRequest>,
  sessions: SessionManager,
  sandboxConsoleUrl?: () => string | undefined,
) {
  const assets = createGraphiqlAssets();
  router.on('GET', '/graphiql/assets/:name', async ({ res, params }) => {
    const asset = assets.get(params.name!);
    if (!asset) return sendError(res, 404, 'NOT_FOUND', 'Not found.');
    const { body, type } = await asset;
    res.writeHead(200, {
      'content-type': `${type}; charset=utf-8`,
      'content-length': body.length,
      'cache-control': 'public, max-age=3600',
      'x-content-type-options': 'nosniff',
    });
    res.end(body);
  });

  /** GraphiQL for a signed-in browser, the sign-in link for anyone else. */
  return async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    const session = await sessions.read(req);
    if (!session) return sendHtml(res, 200, signInPage(sandboxConsoleUrl?.()));
    sendHtml(res, 200, graphiqlPage(), { 'content-security-policy': GRAPHIQL_CSP });
  };
}
