import * as oidc from 'openid-client';

/** The app's own identity provider, as the gateway signs its users in (OpenID Connect, code + PKCE). */
export interface AppSignInSettings {
  issuer: string;
  clientId: string;
  clientSecret: string;
  /** Space-separated; `openid` is always asked for. @default 'openid email profile' */
  scopes?: string;
  /** Only the embedded sandbox provider is plain http; a live issuer must be https. */
  allowInsecureIssuer?: boolean;
}

/** Who signed in, and how: what the session keeps to enforce multi-factor and its freshness. */
export interface AppIdentity {
  sub: string;
  email?: string;
  name?: string;
  /** When the user last actively authenticated (the ID token's `auth_time`), ms since the epoch. */
  authTime: number;
  /** The ID token's authentication method references (RFC 8176): `pwd`, `otp`, `sms`, `mfa`, … */
  amr: string[];
}

/** What a sign-in carries from its start to its callback (kept server-side, bound to the browser). */
export interface PendingSignIn {
  codeVerifier: string;
  state: string;
  nonce: string;
  /** A step-up asked for a fresh authentication: the callback refuses an older `auth_time`. */
  freshAfter?: number;
}

export { DEFAULT_MFA_AMR } from '../config/config.js';

/**
 * A step-up's `auth_time` may be this much older than the moment the step-up began: the provider's
 * clock is not the gateway's. Small against MFA freshness (2 hours), large against skew.
 */
const STEP_UP_CLOCK_TOLERANCE_MS = 30_000;

export class AppSignInError extends Error {
  constructor(
    readonly code: 'IDENTITY_PROVIDER_UNAVAILABLE' | 'SIGN_IN_REFUSED' | 'AUTHENTICATION_NOT_FRESH',
    message: string,
  ) {
    super(message);
    this.name = 'AppSignInError';
  }
}

/**
 * Signs app users in through the app's identity provider with `openid-client` (certified): the
 * provider's metadata is discovered once (again after a failure), every sign-in uses PKCE, state
 * and nonce, and the ID token must carry `auth_time`. Knows nothing of sessions or HTTP routes.
 */
export function createAppSignIn(settings: AppSignInSettings) {
  const configuration = discoveredOnce(settings);
  const scope = scopesOf(settings);

  return {
    /** Fresh PKCE verifier, state and nonce for one sign-in (a step-up also remembers when it began). */
    prepare(options: { stepUp?: boolean; now?: number } = {}): PendingSignIn {
      return {
        codeVerifier: oidc.randomPKCECodeVerifier(),
        state: oidc.randomState(),
        nonce: oidc.randomNonce(),
        ...(options.stepUp ? { freshAfter: (options.now ?? Date.now()) - STEP_UP_CLOCK_TOLERANCE_MS } : {}),
      };
    },

    /** The provider's authorization URL for a prepared sign-in; a step-up asks for `max_age=0`. */
    async authorizationUrl(redirectUri: string, pending: PendingSignIn): Promise<string> {
      const config = await configuration();
      const stepUp = pending.freshAfter !== undefined;
      return oidc.buildAuthorizationUrl(config, {
        redirect_uri: redirectUri,
        scope,
        code_challenge: await oidc.calculatePKCECodeChallenge(pending.codeVerifier),
        code_challenge_method: 'S256',
        state: pending.state,
        nonce: pending.nonce,
        ...(stepUp ? { max_age: '0', prompt: 'login' } : {}),
      }).href;
    },

    /** prepare() and authorizationUrl() in one: the URL to send the browser to, and what the callback needs. */
    async begin(redirectUri: string, options: { stepUp?: boolean; now?: number } = {}) {
      const pending = this.prepare(options);
      return { url: await this.authorizationUrl(redirectUri, pending), pending };
    },

    /** Validates the provider's redirect back and redeems its code; the identity, or AppSignInError. */
    async finish(callbackUrl: URL, pending: PendingSignIn): Promise<AppIdentity> {
      return identityOf(await redeemCode(await configuration(), callbackUrl, pending), pending);
    },
  };
}

export type AppSignIn = ReturnType<typeof createAppSignIn>;

/** The provider's metadata, discovered on first use and again after a failed discovery. */
function discoveredOnce(settings: AppSignInSettings): () => Promise<oidc.Configuration> {
  let discovered: Promise<oidc.Configuration> | undefined;
  return () => {
    discovered ??= oidc
      .discovery(
        new URL(settings.issuer),
        settings.clientId,
        { require_auth_time: true },
        oidc.ClientSecretBasic(settings.clientSecret),
        settings.allowInsecureIssuer ? { execute: [oidc.allowInsecureRequests] } : undefined,
      )
      .catch((error: unknown) => {
        discovered = undefined;
        throw new AppSignInError(
          'IDENTITY_PROVIDER_UNAVAILABLE',
          `The identity provider could not be reached: ${(error as Error).message}`,
        );
      });
    return discovered;
  };
}

/** The scopes asked for: the configured ones, `openid` always first. */
function scopesOf(settings: AppSignInSettings): string {
  return ['openid', ...(settings.scopes ?? 'email profile').split(/\s+/).filter((s) => s && s !== 'openid')].join(' ');
}

/** Redeems the callback's code (state, nonce and PKCE checked); the ID token's claims, or SIGN_IN_REFUSED. */
async function redeemCode(
  config: oidc.Configuration,
  callbackUrl: URL,
  pending: PendingSignIn,
): Promise<oidc.IDToken | undefined> {
  try {
    const tokens = await oidc.authorizationCodeGrant(config, callbackUrl, {
      pkceCodeVerifier: pending.codeVerifier,
      expectedState: pending.state,
      expectedNonce: pending.nonce,
      idTokenExpected: true,
    });
    return tokens.claims();
  } catch (error) {
    throw new AppSignInError('SIGN_IN_REFUSED', `The sign-in was refused: ${(error as Error).message}`);
  }
}

/** The identity the claims name, once they carry `auth_time` (fresh enough for a step-up). */
function identityOf(claims: oidc.IDToken | undefined, pending: PendingSignIn): AppIdentity {
  if (!claims || typeof claims.auth_time !== 'number')
    throw new AppSignInError('SIGN_IN_REFUSED', 'The identity provider sent no auth_time.');
  const authTime = claims.auth_time * 1000;
  if (pending.freshAfter !== undefined && authTime < pending.freshAfter)
    throw new AppSignInError('AUTHENTICATION_NOT_FRESH', 'The step-up did not authenticate the user again.');
  return {
    sub: claims.sub,
    email: typeof claims.email === 'string' ? claims.email : undefined,
    name: typeof claims.name === 'string' ? claims.name : undefined,
    authTime,
    amr: Array.isArray(claims.amr) ? claims.amr.filter((value): value is string => typeof value === 'string') : [],
  };
}

/**
 * The accreditation rules' MFA status of a signed-in identity: `none` when no accepted second
 * factor was used, `stale` once `maxAgeMs` has passed since `auth_time` (step up before moving
 * money), else `fresh`.
 */
export function mfaStatus(
  identity: Pick<AppIdentity, 'amr' | 'authTime'>,
  policy: { acceptedAmr: readonly string[]; maxAgeMs: number },
  now: number,
): 'none' | 'stale' | 'fresh' {
  if (!identity.amr.some((method) => policy.acceptedAmr.includes(method))) return 'none';
  return now - identity.authTime > policy.maxAgeMs ? 'stale' : 'fresh';
}

/**
 * Whether a sign-in may use the platform-connected functionality (connect a bank) under the MFA
 * policy: with a second factor, or anything under `read-only`. The GraphQL access gate applies the
 * same rule to each root field.
 */
export function mayUsePlatform(status: ReturnType<typeof mfaStatus>, policy: 'required' | 'read-only'): boolean {
  return status !== 'none' || policy === 'read-only';
}
