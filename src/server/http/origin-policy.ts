import type { IncomingMessage } from 'node:http';

/** Methods that read; everything else may change state. */
const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);
/** Server-to-server routes whose requests are authenticated by a signature, not a cookie. */
const SIGNED_ROUTES = new Set(['/webhooks']);

/**
 * Whether a state-changing request may proceed by its `Origin`. Absent passes (non-browser
 * clients, and browsers on same-origin GET navigations, send none); the public origin and
 * ALLOWED_ORIGINS pass; anything else is refused, including the literal `null` that sandboxed
 * frames, `data:` documents and some redirects send. CSRF prevention and SameSite cookies cover
 * most cross-site requests already; this closes the rest once CORS is served to allowed origins.
 */
export function originRefused(req: IncomingMessage, pathname: string, allowed: ReadonlySet<string>): boolean {
  if (SAFE_METHODS.has(req.method ?? 'GET') || SIGNED_ROUTES.has(pathname)) return false;
  const origin = req.headers.origin;
  return origin !== undefined && !allowed.has(origin);
}
