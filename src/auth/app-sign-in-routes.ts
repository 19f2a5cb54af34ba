import type { Clock } from '@open-finance-gateway/common/clock';
import { redirect } from '@open-finance-gateway/common/http/respond';
import type { Router } from '@open-finance-gateway/common/http/router';
import type { GatewayConfig } from '../config/config.js';
import type { ScopedRouteRequest } from '../lib/request-scope.js';
import {
  AppSignInError,
  mayUsePlatform,
  mfaStatus,
  type AppIdentity,
  type AppSignIn,
  type PendingSignIn,
} from './app-sign-in.js';
import { fail, type AuthRoutes } from './auth-route-support.js';
import type { BankConnectionStore } from './bank-connection-store.js';
import type { OAuthStateStore } from './oauth-state-store.js';
import type { SessionManager } from './session-manager.js';

export interface AppSignInRoutesOptions {
  support: AuthRoutes;
  signIn: AppSignIn;
  sessions: SessionManager;
  states: OAuthStateStore;
  bankConnections: BankConnectionStore;
  mfa: GatewayConfig['mfa'];
  publicUrl: () => string;
  clock: Clock;
}

const CALLBACK_PATH = '/auth/oidc/callback';

const STATUS_OF: Record<AppSignInError['code'], number> = {
  IDENTITY_PROVIDER_UNAVAILABLE: 502,
  SIGN_IN_REFUSED: 400,
  AUTHENTICATION_NOT_FRESH: 400,
};

/**
 * The app user's sign-in, through the app's identity provider (OpenID Connect, code + PKCE): the
 * gateway never sees a password. `/auth/login` starts it, `/auth/step-up` asks for a fresh
 * authentication (`max_age=0`) before money moves, `/auth/oidc/callback` finishes both. A user
 * with a bank connection goes back to where they were; one without is shown the consumer
 * information page first. `/auth/logout` ends the app session only: the connection stays.
 */
export function registerAppSignInRoutes(router: Router<ScopedRouteRequest>, options: AppSignInRoutesOptions): void {
  router.on('GET', '/auth/login', (request) => startSignIn(options, request, false));
  router.on('GET', '/auth/step-up', (request) => startSignIn(options, request, true));
  router.on('GET', CALLBACK_PATH, (request) => finishSignIn(options, request));
  router.on('POST', '/auth/logout', async ({ req, res }) => {
    // A cross-site form cannot sign a user out: the server's Origin check refuses it first.
    // The app session ends; the bank connection belongs to the app user and stays (revoking is
    // its own act), so signing in again needs no new consent.
    await options.sessions.end(req, res);
    res.writeHead(204, { 'cache-control': 'no-store' });
    res.end();
  });
}

function callbackUrl(options: AppSignInRoutesOptions): string {
  return `${options.publicUrl()}${CALLBACK_PATH}`;
}

/** Sends the browser to the identity provider, remembering what the callback needs under a new state. */
async function startSignIn(
  options: AppSignInRoutesOptions,
  { req, res, url, scope }: ScopedRouteRequest,
  stepUp: boolean,
): Promise<void> {
  const { support } = options;
  if (support.elsewhere(req, res, url)) return;
  const binding = support.bindBrowser(req, res);
  const pending = options.signIn.prepare({ stepUp, now: options.clock() });
  const data: Record<string, string> = {
    flow: 'app',
    codeVerifier: pending.codeVerifier,
    nonce: pending.nonce,
    ...(pending.freshAfter === undefined ? {} : { freshAfter: String(pending.freshAfter) }),
  };
  const state = await options.states.issue(binding, support.returnToOf(url), data);
  try {
    redirect(res, await options.signIn.authorizationUrl(callbackUrl(options), { ...pending, state }));
  } catch (error) {
    if (!(error instanceof AppSignInError)) throw error;
    scope.log.error({ err: { message: error.message } }, 'identity provider unreachable');
    fail(res, 502, error.code, 'The sign-in service cannot be reached right now. Try again shortly.');
  }
}

/** The provider's redirect back: the identity it vouches for becomes (or renews) the app session. */
async function finishSignIn(options: AppSignInRoutesOptions, request: ScopedRouteRequest): Promise<void> {
  const { req, res, url, scope } = request;
  const { support } = options;
  const check = await options.states.consume(url.searchParams.get('state'), support.bindingOf(req));
  if (!check.ok) {
    scope.log.warn({ reason: check.reason }, 'sign-in callback refused: bad state');
    return support.refuseState(res, check.reason, '/auth/login');
  }
  if (check.data?.flow !== 'app') return support.refuseState(res, 'unknown', '/auth/login');
  const refusal = url.searchParams.get('error');
  if (refusal)
    return fail(res, 400, 'SIGN_IN_REFUSED', `The identity provider did not sign you in (${refusal.slice(0, 64)}).`);
  const data = check.data;
  const identity = await signedInIdentity(options, request, {
    state: url.searchParams.get('state')!,
    codeVerifier: data.codeVerifier!,
    nonce: data.nonce!,
    ...(data.freshAfter === undefined ? {} : { freshAfter: Number(data.freshAfter) }),
  });
  if (identity) await startSession(options, request, identity, check.returnTo, data.freshAfter !== undefined);
}

/** The identity the provider's answer proves; undefined (and the refusal sent) when it proves none. */
async function signedInIdentity(
  options: AppSignInRoutesOptions,
  { res, url, scope }: ScopedRouteRequest,
  pending: PendingSignIn,
): Promise<AppIdentity | undefined> {
  try {
    // The URL the provider redirected to, on the public origin it was registered with.
    return await options.signIn.finish(new URL(`${callbackUrl(options)}${url.search}`), pending);
  } catch (error) {
    if (!(error instanceof AppSignInError)) throw error;
    scope.log.warn({ code: error.code, reason: error.message }, 'app sign-in failed');
    fail(res, STATUS_OF[error.code], error.code, error.message);
    return undefined;
  }
}

/** Renews the session for a step-up, else starts a new one holding the user's connection, and redirects on. */
async function startSession(
  options: AppSignInRoutesOptions,
  { req, res, scope }: ScopedRouteRequest,
  identity: AppIdentity,
  returnTo: string,
  steppedUp: boolean,
): Promise<void> {
  const mfa = mfaStatus(identity, options.mfa, options.clock());
  const signedIn = { userId: identity.sub, authTime: identity.authTime, amr: identity.amr };
  // A step-up by the same user renews the session in place: its sockets and subscriptions carry on.
  if (steppedUp && (await options.sessions.renewAuthentication(req, signedIn))) {
    scope.log.info({ userId: identity.sub, mfa }, 'user stepped up');
    return redirect(res, returnTo, {}, 303);
  }
  const connection = await options.bankConnections.get(identity.sub);
  // Signing in is what keeps a connection needed (BANK_CONNECTION_IDLE_DAYS counts from here).
  if (connection) await options.bankConnections.touch(identity.sub);
  await options.sessions.end(req, res);
  await options.sessions.start(res, signedIn, connection?.platformToken);
  scope.log.info({ userId: identity.sub, mfa, connected: connection !== undefined }, 'user signed in');
  // A user who has not connected their bank sees the consumer information page first, if they may connect.
  const next =
    connection || !mayUsePlatform(mfa, options.mfa.policy)
      ? returnTo
      : `/auth/consumer-info?${new URLSearchParams({ returnTo })}`;
  redirect(res, next, {}, 303);
}
