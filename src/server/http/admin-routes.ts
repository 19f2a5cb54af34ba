import { timingSafeEqual } from 'node:crypto';
import { sendError, sendJson } from '@open-finance-gateway/common/http/respond';
import type { Router } from '@open-finance-gateway/common/http/router';
import { sha256Hex } from '@open-finance-gateway/common/ids';
import type { ScopedRouteRequest } from '../../lib/request-scope.js';
import type { DeadLetterStore } from '../../webhooks/dead-letter-store.js';

export interface AdminRoutesOptions {
  /** The operators' bearer token (ADMIN_TOKEN). */
  token: string;
  deadLetters: DeadLetterStore;
  /** Prometheus text for `GET /metrics` on the main port (behind the same token). */
  metrics?: () => Promise<{ contentType: string; body: string }>;
  /** Ends every sign-in of a user: their sessions, and their access tokens issued until now. */
  endAccess?: (userId: string) => Promise<void>;
}

/**
 * Operator endpoints, registered only when ADMIN_TOKEN is set. The token is compared through
 * digests in constant time, so neither its content nor its length leaks through timing.
 */
export function registerAdminRoutes(router: Router<ScopedRouteRequest>, options: AdminRoutesOptions): void {
  const expected = Buffer.from(sha256Hex(options.token), 'hex');
  const authorised = (header: string | undefined) => {
    const presented = header?.startsWith('Bearer ') ? header.slice('Bearer '.length) : '';
    return timingSafeEqual(Buffer.from(sha256Hex(presented), 'hex'), expected);
  };

  router.on('GET', '/admin/webhooks/dead-letters', async ({ req, res }) => {
    if (!authorised(req.headers.authorization))
      return sendError(res, 401, 'UNAUTHENTICATED', 'The admin token is required.', { 'www-authenticate': 'Bearer' });
    sendJson(res, 200, { deadLetters: await options.deadLetters.list() });
  });

  const { endAccess } = options;
  if (endAccess) {
    // The operator's revocation (a stolen phone reported, an account under investigation).
    router.on('POST', '/admin/users/:userId/sign-out', async ({ req, res, params }) => {
      if (!authorised(req.headers.authorization))
        return sendError(res, 401, 'UNAUTHENTICATED', 'The admin token is required.', { 'www-authenticate': 'Bearer' });
      await endAccess(params.userId!);
      sendJson(res, 200, { signedOut: true });
    });
  }

  const { metrics } = options;
  if (metrics) {
    router.on('GET', '/metrics', async ({ req, res }) => {
      if (!authorised(req.headers.authorization))
        return sendError(res, 401, 'UNAUTHENTICATED', 'The admin token is required.', { 'www-authenticate': 'Bearer' });
      const { contentType, body } = await metrics();
      res.writeHead(200, { 'content-type': contentType, 'cache-control': 'no-store' }).end(body);
    });
  }
}
