import { timingSafeEqual } from 'node:crypto';
import { sha256Hex } from '../lib/ids.js';
import { sendJson } from '../lib/http/respond.js';
import type { Router } from '../lib/http/router.js';
import type { DeadLetterStore } from '../webhooks/dead-letters.js';

export interface AdminRoutesOptions {
  /** The operators' bearer token (ADMIN_TOKEN). */
  token: string;
  deadLetters: DeadLetterStore;
}

/**
 * Operator endpoints, registered only when ADMIN_TOKEN is set. The token is compared through
 * digests in constant time, so neither its content nor its length leaks through timing.
 */
export function registerAdminRoutes(router: Router, options: AdminRoutesOptions): void {
  const expected = Buffer.from(sha256Hex(options.token), 'hex');
  const authorised = (header: string | undefined) => {
    const presented = header?.startsWith('Bearer ') ? header.slice('Bearer '.length) : '';
    return timingSafeEqual(Buffer.from(sha256Hex(presented), 'hex'), expected);
  };

  router.on('GET', '/admin/webhooks/dead-letters', async ({ req, res }) => {
    if (!authorised(req.headers.authorization)) return sendJson(res, 401, { error: 'admin token required' }, { 'www-authenticate': 'Bearer' });
    sendJson(res, 200, { deadLetters: await options.deadLetters.list() });
  });
}
