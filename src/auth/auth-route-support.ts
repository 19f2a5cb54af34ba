import type { IncomingMessage, ServerResponse } from 'node:http';
import { parse as parseCookies, serialize as serializeCookie } from 'cookie';
import { redirect, sendHtml } from '@open-finance-gateway/common/http/respond';
import { randomToken } from '@open-finance-gateway/common/ids';
import { authErrorPage } from './auth-pages.js';
import { cookieNamesToSet, cookieValueOf } from './cookie-names.js';
import { OAUTH_STATE_TTL_MS, type StateCheck } from './oauth-state-store.js';
import { safeReturnTo } from './return-to.js';
import { appendSetCookie } from './session-manager.js';

/** What both redirect flows (app sign-in, bank connection) share: the origin, the browser binding, the error page. */
export interface AuthRouteSupport {
  /** Resolved per request: the port may only be known once the server listens. */
  publicUrl: () => string;
  secureCookies: boolean;
  /** Frontends' origins (ALLOWED_ORIGINS): a flow may return to an absolute URL on one of them. */
  allowedOrigins?: () => Iterable<string>;
}

/**
 * Marks a request the gateway itself moved to the public origin. Behind a proxy that presents
 * another Host (its upstream's address), the moved request arrives with that Host again: the
 * marker makes the move happen at most once, so it cannot loop. It only ever suppresses a move.
 */
const MOVED_PARAM = 'atPublicOrigin';

/** The request's Host names the public origin's port under another host name (the gateway listens on plain http). */
function sameMachineOtherName(host: string | undefined, publicOrigin: URL): boolean {
  if (host === undefined || host === publicOrigin.host) return false;
  let requested: URL;
  try {
    requested = new URL(`http://${host}`);
  } catch {
    return false;
  }
  const publicPort = publicOrigin.port || (publicOrigin.protocol === 'https:' ? '443' : '80');
  return (requested.port || '80') === publicPort && requested.hostname !== publicOrigin.hostname;
}

export function createAuthRouteSupport(options: AuthRouteSupport) {
  const bindingOf = (req: IncomingMessage) =>
    cookieValueOf(parseCookies(req.headers.cookie ?? ''), options.publicUrl(), 'oauthBinding');
  const origin = () => new URL(options.publicUrl()).origin;
  return {
    origin,
    returnToOf: (url: URL) =>
      safeReturnTo(url.searchParams.get('returnTo'), origin(), options.allowedOrigins?.() ?? []),

    /**
     * A flow started at another name for this address (127.0.0.1 for a PUBLIC_URL on localhost,
     * same port) goes to the public origin first, with the same path and query: the callback lands
     * there, and cookies are per host, so the browser binding must be set there too. returnTo
     * travels untouched and is judged where it is used. Another port means a proxy in front (which
     * may present its upstream's Host): left alone. Once only (see MOVED_PARAM).
     */
    elsewhere(req: IncomingMessage, res: ServerResponse, url: URL): boolean {
      const publicOrigin = new URL(options.publicUrl());
      if (!sameMachineOtherName(req.headers.host, publicOrigin) || url.searchParams.has(MOVED_PARAM)) return false;
      const target = new URL(`${url.pathname}${url.search}`, publicOrigin);
      target.searchParams.set(MOVED_PARAM, '1');
      redirect(res, target.href);
      return true;
    },

    /**
     * The browser's binding: a random value in its own short-lived cookie, which an OAuth `state`
     * is bound to, so a state lifted from one browser's URL is useless in another.
     */
    bindBrowser(req: IncomingMessage, res: ServerResponse): string {
      const existing = bindingOf(req);
      if (existing && existing.length >= 32) return existing;
      const binding = randomToken();
      for (const name of cookieNamesToSet(options.publicUrl(), 'oauthBinding'))
        appendSetCookie(
          res,
          serializeCookie(name, binding, {
            httpOnly: true,
            sameSite: 'lax',
            secure: options.secureCookies,
            path: '/',
            maxAge: OAUTH_STATE_TTL_MS / 1000,
          }),
        );
      return binding;
    },

    bindingOf,

    /** The page for a refused `state`, naming the likely cause. */
    refuseState(res: ServerResponse, reason: Extract<StateCheck, { ok: false }>['reason'], startAt: string): void {
      const messages = {
        missing: 'The sign-in response carried no state parameter, so it cannot be trusted.',
        unknown: 'This sign-in link has expired or was already used.',
        foreign: `This sign-in was started in another browser or session, or at another address than ${origin()} (such as 127.0.0.1 instead of localhost). Start again from ${options.publicUrl()}${startAt}.`,
      } as const;
      fail(res, 400, `OAUTH_STATE_${reason.toUpperCase()}`, messages[reason]);
    },
  };
}

export type AuthRoutes = ReturnType<typeof createAuthRouteSupport>;

export function fail(res: ServerResponse, status: number, code: string, message: string): void {
  sendHtml(res, status, authErrorPage(code, message));
}
