import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Clock } from '@open-finance-gateway/common/clock';
import { redirect, sendHtml } from '@open-finance-gateway/common/http/respond';
import type { Router } from '@open-finance-gateway/common/http/router';
import type { GatewayConfig } from '../config/config.js';
import type { ScopedRouteRequest } from '../lib/request-scope.js';
import type { CoreClient } from '../upstream/core-client.js';
import { UpstreamError } from '../upstream/upstream-error.js';
import { mayUsePlatform, mfaStatus } from './app-sign-in.js';
import { fail, type AuthRoutes } from './auth-route-support.js';
import type { BankConnectionRecord, BankConnectionStore } from './bank-connection-store.js';
import { consumerInfoPage, type ConsumerInfoSettings } from './consumer-info.js';
import type { OAuthStateStore } from './oauth-state-store.js';
import { appReturnUrl, phoneReturnOf, type PhoneReturn } from './phone-bank-connection.js';
import type { Session, SessionManager } from './session-manager.js';

export interface BankConnectionRoutesOptions {
  support: AuthRoutes;
  sessions: SessionManager;
  states: OAuthStateStore;
  bankConnections: BankConnectionStore;
  core: CoreClient;
  mfa: GatewayConfig['mfa'];
  appToken: string;
  authorizeUrl: string;
  publicUrl: () => string;
  clock: Clock;
  /** What the consumer information page shows before the platform's connection flow. */
  consumerInfo: ConsumerInfoSettings;
  /** Revokes a token the gateway no longer holds (the connection it belonged to was replaced). */
  revokeReplacedToken(userId: string, token: string): Promise<unknown>;
  /** Called after a connection is made (webhook subscriptions hook in here). */
  onConnected?: (userId: string, platformToken: string) => Promise<void>;
  /**
   * A new consent was stored, before the user is sent back: what was kept of the user's data
   * under the consent it replaces goes (the new one may share other accounts).
   */
  onConsentStored?: (userId: string) => Promise<void>;
}

/**
 * Connecting the signed-in app user's bank: the consumer information page (the accreditation
 * rules: what connecting gives, its scope and duration, how to stop, who the platform is), then
 * the platform's OAuth consent, then the token stored as the app user's connection (encrypted in
 * the shared store) and used by every session of theirs.
 */
export function registerBankConnectionRoutes(
  router: Router<ScopedRouteRequest>,
  options: BankConnectionRoutesOptions,
): void {
  const routes = new BankConnectionRoutes(options);
  router.on('GET', '/auth/consumer-info', (request) => routes.consumerInfo(request));
  router.on('GET', '/auth/connect', (request) => routes.connect(request));
  router.on('GET', '/auth/callback', (request) => routes.callback(request));
}

/** The platform's consent page for an OAuth state. */
export function platformAuthorizeUrl(
  options: Pick<BankConnectionRoutesOptions, 'authorizeUrl' | 'appToken'>,
  callbackUrl: string,
  state: string,
): string {
  const target = new URL(options.authorizeUrl);
  target.searchParams.set('response_type', 'code');
  target.searchParams.set('client_id', options.appToken);
  target.searchParams.set('redirect_uri', callbackUrl);
  target.searchParams.set('scope', 'ENDURING_CONSENT');
  target.searchParams.set('state', state);
  return target.href;
}

type Scope = ScopedRouteRequest['scope'];

/** The consent the platform answered with: whose it is, its code, and where the user returns to. */
interface GrantedConsent {
  userId: string;
  code: string;
  returnTo: string;
  /** Started from a native app's connection URL: the browser returns to the app, with the outcome only. */
  phone?: PhoneReturn;
}

class BankConnectionRoutes {
  constructor(private readonly options: BankConnectionRoutesOptions) {}

  private callbackUrl(): string {
    return `${this.options.publicUrl()}/auth/callback`;
  }

  async consumerInfo({ req, res, url }: ScopedRouteRequest): Promise<void> {
    const { support } = this.options;
    if (support.elsewhere(req, res, url)) return;
    if (!(await this.connectingSession(req, res, url))) return;
    const returnTo = support.returnToOf(url);
    sendHtml(
      res,
      200,
      consumerInfoPage(this.options.consumerInfo, `/auth/connect?${new URLSearchParams({ returnTo })}`),
    );
  }

  async connect({ req, res, url }: ScopedRouteRequest): Promise<void> {
    const { options } = this;
    const { support } = options;
    if (support.elsewhere(req, res, url)) return;
    const session = await this.connectingSession(req, res, url);
    if (!session) return;
    const binding = support.bindBrowser(req, res);
    // Bound to the browser and to the app user: the consent lands on the account that asked for it.
    const state = await options.states.issue(binding, support.returnToOf(url), {
      flow: 'platform',
      userId: session.userId,
    });
    redirect(res, platformAuthorizeUrl(options, this.callbackUrl(), state));
  }

  async callback({ req, res, url, scope }: ScopedRouteRequest): Promise<void> {
    const consent = await this.grantedConsent(req, res, url, scope);
    if (!consent) return;
    // Read before the code is exchanged (no token exists yet if this fails): if the write that
    // follows times out, its answer (the connection it replaced) is lost, and this is that connection.
    const before = await this.options.bankConnections.get(consent.userId);
    try {
      await this.storeConnection(consent, before, scope);
      redirect(res, consent.returnTo, {}, 303);
    } catch (error) {
      if (!(error instanceof UpstreamError)) throw error;
      if (consent.phone) {
        scope.log.warn({ upstream: error.upstream, kind: error.kind, status: error.status }, 'token exchange failed');
        return redirect(res, appReturnUrl(consent.phone, 'error'), {}, 303);
      }
      this.exchangeFailed(res, error, scope);
    }
  }

  /** The session that may connect: signed in, and with multi-factor when the policy requires it. */
  private async connectingSession(req: IncomingMessage, res: ServerResponse, url: URL): Promise<Session | undefined> {
    const { options } = this;
    const session = await options.sessions.read(req);
    if (!session) {
      redirect(res, `/auth/login?${new URLSearchParams({ returnTo: `${url.pathname}${url.search}` })}`);
      return undefined;
    }
    if (!mayUsePlatform(mfaStatus(session, options.mfa, options.clock()), options.mfa.policy)) {
      fail(
        res,
        403,
        'MFA_REQUIRED',
        'Connecting your bank needs a sign-in with a second factor (authenticator app, SMS code or security key). Sign in again.',
      );
      return undefined;
    }
    return session;
  }

  /** The callback's consent when its state, session and code all hold; otherwise refused (undefined). */
  private async grantedConsent(
    req: IncomingMessage,
    res: ServerResponse,
    url: URL,
    scope: Scope,
  ): Promise<GrantedConsent | undefined> {
    const { support, states, sessions } = this.options;
    const check = await states.consume(url.searchParams.get('state'), support.bindingOf(req));
    if (!check.ok) {
      scope.log.warn({ reason: check.reason }, 'OAuth callback refused: bad state');
      support.refuseState(res, check.reason, '/auth/consumer-info');
      return undefined;
    }
    if (check.data?.flow !== 'platform') {
      support.refuseState(res, 'unknown', '/auth/consumer-info');
      return undefined;
    }
    const phone = phoneReturnOf(check.data);
    if (phone) return this.phoneConsent(res, url, check.data.userId!, phone);
    const session = await sessions.read(req);
    if (!session || session.userId !== check.data.userId) {
      fail(
        res,
        400,
        'SIGNED_OUT_DURING_CONNECTION',
        'You signed out or changed user while connecting your bank. Sign in and connect again.',
      );
      return undefined;
    }
    const denied = url.searchParams.get('error');
    if (denied) {
      fail(res, 400, 'OAUTH_DENIED', `The platform did not grant access (${denied.slice(0, 64)}).`);
      return undefined;
    }
    const code = url.searchParams.get('code');
    if (!code) {
      fail(res, 400, 'OAUTH_CODE_MISSING', 'The sign-in response carried no authorization code.');
      return undefined;
    }
    return { userId: session.userId, code, returnTo: check.returnTo };
  }

  /** A phone's consent: the grant named the user; every other outcome returns to the app, coded. */
  private phoneConsent(res: ServerResponse, url: URL, userId: string, phone: PhoneReturn): GrantedConsent | undefined {
    const code = url.searchParams.get('code');
    if (url.searchParams.get('error') || !code) {
      redirect(res, appReturnUrl(phone, url.searchParams.get('error') ? 'refused' : 'error'), {}, 303);
      return undefined;
    }
    return { userId, code, returnTo: appReturnUrl(phone, 'connected'), phone };
  }

  /** Trades the code for a token and makes it the user's bank connection, revoking the tokens it replaces. */
  private async storeConnection(
    { userId, code }: GrantedConsent,
    before: BankConnectionRecord | undefined,
    scope: Scope,
  ): Promise<void> {
    const { options } = this;
    const core = options.core.forRequest(scope.requestId);
    const grant = await core.exchangeCode(code, this.callbackUrl());
    const me = await core.getMe(grant.access_token);
    const now = options.clock();
    let replaced: BankConnectionRecord | undefined;
    try {
      replaced = await options.bankConnections.set(userId, {
        platformUserId: me._id,
        platformToken: grant.access_token,
        connectedAt: now,
        lastUsedAt: now,
      });
    } catch (error) {
      // The write may have landed or not (and can still land later, before any later command
      // on the same connection): the revoker keeps whichever token the connection holds once
      // the store answers and revokes the other. Not awaited: the store is failing now.
      void this.revokeReplaced(userId, [grant.access_token, before?.platformToken], scope);
      throw error;
    }
    try {
      await options.onConsentStored?.(userId);
      // The sessions move to the new token before the old one is revoked under them.
      await options.sessions.attachToken(userId, grant.access_token);
    } finally {
      // Whatever happened to the sessions, the connection no longer holds these.
      await this.revokeReplaced(userId, [replaced?.platformToken, before?.platformToken], scope, grant.access_token);
    }
    scope.log.info({ userId, reconnected: replaced !== undefined }, 'bank connected');
    if (options.onConnected) {
      // Follow-up work (webhook subscriptions) must not break the connection; it reports its own failures.
      options
        .onConnected(userId, grant.access_token)
        .catch((error: unknown) => scope.log.error({ err: error, userId }, 'post-connection step failed'));
    }
  }

  /**
   * Hands tokens the connection may no longer hold to the revoker, which asks the store first
   * (and asks again later while the store cannot answer), so a token the connection does hold
   * is never revoked.
   */
  private async revokeReplaced(
    userId: string,
    tokens: Array<string | undefined>,
    scope: Scope,
    kept?: string,
  ): Promise<void> {
    const replaced = [...new Set(tokens)].filter((token) => token !== undefined && token !== kept);
    await Promise.all(
      replaced.map((token) =>
        this.options
          .revokeReplacedToken(userId, token!)
          .catch((error: unknown) => scope.log.error({ err: error, userId }, 'revoking a replaced token failed')),
      ),
    );
  }

  private exchangeFailed(res: ServerResponse, error: UpstreamError, scope: Scope): void {
    scope.log.warn(
      { upstream: error.upstream, kind: error.kind, status: error.status, oauthError: error.details.oauthError },
      'token exchange failed',
    );
    if (error.kind === 'http' && error.status !== undefined && error.status < 500) {
      fail(
        res,
        400,
        'OAUTH_EXCHANGE_REFUSED',
        `The platform refused the authorization code (${error.details.oauthError ?? error.status}).`,
      );
      return;
    }
    const timeout = error.kind === 'timeout';
    fail(
      res,
      timeout ? 504 : 502,
      timeout ? 'UPSTREAM_TIMEOUT' : 'UPSTREAM_UNAVAILABLE',
      'The platform could not complete the connection. Try again shortly.',
    );
  }
}
