import * as oidc from 'openid-client';
import { listenOnLoopback } from './loopback.js';

/** Opens a URL in the system browser; a native app never shows the provider's pages in a web view. */
export type OpenUrl = (url: string, purpose: 'sign-in' | 'bank-connection') => void | Promise<void>;

export interface SignInOptions {
  /** The identity provider (the gateway's OIDC_ISSUER; on the sandbox, the URL its banner prints). */
  issuer: string;
  /** The app's public native client: no secret. */
  clientId: string;
  openUrl: OpenUrl;
  /** Authorize again with `max_age=0` (a step-up, as STEP_UP_REQUIRED asks). */
  stepUp?: boolean;
}

export interface NativeTokens {
  accessToken: string;
  refreshToken: string | undefined;
  expiresIn: number | undefined;
}

/**
 * The authorization code flow as RFC 8252 has a native app run it: the authorization URL opened in
 * the system browser, PKCE (S256) and a `state`, the browser's return taken on a loopback listener
 * (§7.3), and the code redeemed with the verifier and no client secret. Plain `http` is allowed
 * only for an issuer on this machine (the sandbox).
 */
export async function signIn(options: SignInOptions): Promise<NativeTokens> {
  const issuer = new URL(options.issuer);
  const local = ['127.0.0.1', 'localhost', '[::1]'].includes(issuer.hostname);
  const config = await oidc.discovery(
    issuer,
    options.clientId,
    undefined,
    oidc.None(),
    local ? { execute: [oidc.allowInsecureRequests] } : undefined,
  );
  const verifier = oidc.randomPKCECodeVerifier();
  const state = oidc.randomState();
  const loopback = await listenOnLoopback('/callback');
  try {
    const url = oidc.buildAuthorizationUrl(config, {
      redirect_uri: loopback.uri,
      scope: 'openid',
      state,
      code_challenge: await oidc.calculatePKCECodeChallenge(verifier),
      code_challenge_method: 'S256',
      ...(options.stepUp ? { max_age: '0', prompt: 'login' } : {}),
    });
    await options.openUrl(url.href, 'sign-in');
    const returned = await loopback.received;
    // openid-client checks `state` and any error the provider returned, then redeems the code.
    const tokens = await oidc.authorizationCodeGrant(config, returned, {
      pkceCodeVerifier: verifier,
      expectedState: state,
    });
    return { accessToken: tokens.access_token, refreshToken: tokens.refresh_token, expiresIn: tokens.expiresIn() };
  } finally {
    loopback.close();
  }
}
