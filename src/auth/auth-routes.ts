import type { IncomingMessage, ServerResponse } from 'node:http';
import { parse as parseCookies, serialize as serializeCookie } from 'cookie';
import type { Logger } from '../lib/logger.js';
import { randomToken } from '../lib/ids.js';
import { redirect, sendHtml } from '../lib/http/respond.js';
import type { Router } from '../lib/http/router.js';
import type { CoreClient } from '../upstream/core-client.js';
import { UpstreamError } from '../upstream/upstream-error.js';
import { authErrorPage } from './auth-pages.js';
import { consumerInfoPage, type ConsumerInfoSettings } from './consumer-info.js';
import type { OAuthStateStore } from './oauth-state-store.js';
import { safeReturnTo } from './return-to.js';
import { appendSetCookie, type SessionManager } from './session-manager.js';

export interface AuthRoutesOptions {
  sessions: SessionManager;
  states: OAuthStateStore;
  core: CoreClient;
  logger: Logger;
  appToken: string;
  authorizeUrl: string;
  /** Resolved at start: the port may only be known once the server listens. */
  publicUrl: () => string;
  secureCookies: boolean;
  /**
   * PUBLIC_URL was not set (the local default `http://localhost:<port>`): a sign-in started at
   * another address of this machine (127.0.0.1) is first sent to the public origin, where the
   * callback will land, so its binding cookie is there too. Never with PUBLIC_URL set: behind a
   * proxy the Host header may legitimately differ, and redirecting could loop.
   */
  redirectToPublicOrigin?: boolean;
  /** Revokes the platform token of a session that ended, unless another session holds it. */
  releaseToken(userId: string, token: string): Promise<unknown>;
  /** Called after a successful sign-in (webhook subscriptions hook in here). */
  onSignedIn?: (userId: string, accessToken: string) => Promise<void>;
  /** What the consumer information page shows before the platform's connection flow. */
  consumerInfo: ConsumerInfoSettings;
}

const STATE_TTL_SECONDS = 600;

export function registerAuthRoutes(router: Router, options: AuthRoutesOptions): void {
  const bindingCookie = options.secureCookies ? '__Host-gw_oauth' : 'gw_oauth';
  const callbackUrl = () => `${options.publicUrl()}/auth/callback`;

  /** Sign-in started at another address of this machine goes to the public origin first (see redirectToPublicOrigin). */
  const elsewhere = (req: IncomingMessage, res: ServerResponse, url: URL): boolean => {
    const publicOrigin = new URL(options.publicUrl());
    if (!options.redirectToPublicOrigin || req.headers.host === undefined || req.headers.host === publicOrigin.host)
      return false;
    redirect(res, new URL(`${url.pathname}${url.search}`, publicOrigin).href);
    return true;
  };

  // The consumer information page comes first (the accreditation rules): what connecting gives,
  // its scope and duration, how to stop, who the platform is. Its button starts the connection.
  router.on('GET', '/auth/login', async ({ req, res, url }) => {
    if (elsewhere(req, res, url)) return;
    const returnTo = safeReturnTo(url.searchParams.get('returnTo'), new URL(options.publicUrl()).origin);
    sendHtml(res, 200, consumerInfoPage(options.consumerInfo, `/auth/connect?${new URLSearchParams({ returnTo })}`));
  });

  router.on('GET', '/auth/connect', async ({ req, res, url }) => {
    if (elsewhere(req, res, url)) return;
    let binding = parseCookies(req.headers.cookie ?? '')[bindingCookie];
    if (!binding || binding.length < 32) {
      binding = randomToken();
      appendSetCookie(
        res,
        serializeCookie(bindingCookie, binding, {
          httpOnly: true,
          sameSite: 'lax',
          secure: options.secureCookies,
          path: '/',
          maxAge: STATE_TTL_SECONDS,
        }),
      );
    }
    const state = await options.states.issue(
      binding,
      safeReturnTo(url.searchParams.get('returnTo'), new URL(options.publicUrl()).origin),
    );
    const target = new URL(options.authorizeUrl);
    target.searchParams.set('response_type', 'code');
    target.searchParams.set('client_id', options.appToken);
    target.searchParams.set('redirect_uri', callbackUrl());
    target.searchParams.set('scope', 'ENDURING_CONSENT');
    target.searchParams.set('state', state);
    redirect(res, target.href);
  });

  router.on('GET', '/auth/callback', async ({ req, res, url }) => {
    const binding = parseCookies(req.headers.cookie ?? '')[bindingCookie];
    const check = await options.states.consume(url.searchParams.get('state'), binding);
    if (!check.ok) {
      options.logger.warn({ reason: check.reason }, 'OAuth callback refused: bad state');
      const messages = {
        missing: 'The sign-in response carried no state parameter, so it cannot be trusted.',
        unknown: 'This sign-in link has expired or was already used.',
        foreign: `This sign-in was started in another browser or session, or at another address than ${new URL(options.publicUrl()).origin} (such as 127.0.0.1 instead of localhost). Start again from ${options.publicUrl()}/auth/login.`,
      } as const;
      return fail(res, 400, `OAUTH_STATE_${check.reason.toUpperCase()}`, messages[check.reason]);
    }
    const denied = url.searchParams.get('error');
    if (denied) return fail(res, 400, 'OAUTH_DENIED', `The platform did not grant access (${denied.slice(0, 64)}).`);
    const code = url.searchParams.get('code');
    if (!code) return fail(res, 400, 'OAUTH_CODE_MISSING', 'The sign-in response carried no authorization code.');

    try {
      const grant = await options.core.exchangeCode(code, callbackUrl());
      const me = await options.core.getMe(grant.access_token);
      const replaced = await options.sessions.end(req, res);
      await options.sessions.start(res, me._id, grant.access_token);
      if (replaced) await options.releaseToken(replaced.userId, replaced.accessToken);
      options.logger.info({ userId: me._id }, 'user signed in');
      if (options.onSignedIn) {
        // Follow-up work (webhook subscriptions) must not break sign-in; it reports its own failures.
        options
          .onSignedIn(me._id, grant.access_token)
          .catch((error: unknown) => options.logger.error({ err: error, userId: me._id }, 'post sign-in step failed'));
      }
      redirect(res, check.returnTo, {}, 303);
    } catch (error) {
      if (!(error instanceof UpstreamError)) throw error;
      options.logger.warn(
        { upstream: error.upstream, kind: error.kind, status: error.status, oauthError: error.details.oauthError },
        'token exchange failed',
      );
      if (error.kind === 'http' && error.status !== undefined && error.status < 500) {
        return fail(
          res,
          400,
          'OAUTH_EXCHANGE_REFUSED',
          `The platform refused the authorization code (${error.details.oauthError ?? error.status}).`,
        );
      }
      const timeout = error.kind === 'timeout';
      return fail(
        res,
        timeout ? 504 : 502,
        timeout ? 'UPSTREAM_TIMEOUT' : 'UPSTREAM_UNAVAILABLE',
        'The platform could not complete the sign-in. Try again shortly.',
      );
    }
  });

  router.on('POST', '/auth/logout', async ({ req, res }) => {
    // A cross-site form cannot sign a user out: the server's Origin check refuses it first.
    const ended = await options.sessions.end(req, res);
    // Until the app has accounts of its own, signing out is the end of this consent too.
    if (ended) await options.releaseToken(ended.userId, ended.accessToken);
    res.writeHead(204, { 'cache-control': 'no-store' });
    res.end();
  });
}

function fail(res: ServerResponse, status: number, code: string, message: string): void {
  sendHtml(res, status, authErrorPage(code, message));
}
