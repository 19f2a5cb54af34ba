import { createHash, randomBytes } from 'node:crypto';
import { createClient, type Client } from 'graphql-ws';
import WebSocket from 'ws';
import type { Sandbox } from '@open-finance-gateway/sandbox';
import { signInAtProvider } from '@open-finance-gateway/sandbox/testing';
import { Browser } from './browser.js';
import { track } from './leftovers.js';

/** Seconds since the epoch, as JWT claims count time. */
export const nowSeconds = () => Math.floor(Date.now() / 1000);

/**
 * The claims of a valid access token from the sandbox provider for `sub`, of token family `sid`:
 * issued 5 s ago, with fresh multi-factor, for ten minutes. `extra` overrides any of them.
 */
export function accessTokenClaims(
  gateway: { url: string; sandbox: { identity: { issuer: string; nativeClientId: string } } },
  sub: string,
  sid: string,
  extra: Record<string, unknown> = {},
): Record<string, unknown> {
  const now = nowSeconds();
  return {
    iss: gateway.sandbox.identity.issuer,
    aud: gateway.url,
    sub,
    client_id: gateway.sandbox.identity.nativeClientId,
    iat: now - 5,
    exp: now + 600,
    auth_time: now - 5,
    amr: ['pwd', 'otp'],
    sid,
    ...extra,
  };
}

/** Where the sandbox's native client returns to: loopback, any port (RFC 8252 §7.3). */
export const LOOPBACK_REDIRECT = 'http://127.0.0.1:53682/callback';

export interface NativeTokens {
  accessToken: string;
  refreshToken: string | undefined;
  /** The system browser the sign-in ran in (the provider's session cookie is in it). */
  browser: Browser;
}

/**
 * What a native app does (RFC 8252): authorization code with PKCE at the sandbox provider for its
 * public native client, in the system browser (`browser`, a scripted one), with the user's second
 * factor; then the code redeemed without a client secret. `stepUp`: `max_age=0` and
 * `prompt=login`, as the gateway's STEP_UP_REQUIRED says.
 */
export async function nativeSignIn(
  sandbox: Sandbox,
  email: string,
  options: { browser?: Browser; stepUp?: boolean; resource?: string } = {},
): Promise<NativeTokens> {
  const browser = options.browser ?? new Browser();
  const { issuer, nativeClientId } = sandbox.identity;
  const metadata = (await (await fetch(`${issuer}/.well-known/openid-configuration`)).json()) as {
    authorization_endpoint: string;
    token_endpoint: string;
  };
  const verifier = randomBytes(32).toString('base64url');
  const authorize = new URL(metadata.authorization_endpoint);
  authorize.search = new URLSearchParams({
    client_id: nativeClientId,
    response_type: 'code',
    redirect_uri: LOOPBACK_REDIRECT,
    scope: 'openid',
    state: randomBytes(8).toString('hex'),
    code_challenge: createHash('sha256').update(verifier).digest('base64url'),
    code_challenge_method: 'S256',
    ...(options.resource ? { resource: options.resource } : {}),
    ...(options.stepUp ? { max_age: '0', prompt: 'login' } : {}),
  }).toString();
  const back = await signInAtProvider(browser, sandbox, authorize.href, email, LOOPBACK_REDIRECT);
  const code = back.searchParams.get('code');
  if (!code) throw new Error(`the provider returned no code: ${back.href}`);
  const answer = await fetch(metadata.token_endpoint, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({
      grant_type: 'authorization_code',
      code,
      redirect_uri: LOOPBACK_REDIRECT,
      client_id: nativeClientId,
      code_verifier: verifier,
    }),
  });
  const tokens = (await answer.json()) as { access_token?: string; refresh_token?: string; error?: string };
  if (!tokens.access_token) throw new Error(`the token endpoint answered ${answer.status}: ${JSON.stringify(tokens)}`);
  return { accessToken: tokens.access_token, refreshToken: tokens.refresh_token, browser };
}

/** The claims of a JWT, unverified (for assertions). */
export function claimsOf(jwt: string): Record<string, unknown> {
  return JSON.parse(Buffer.from(jwt.split('.')[1]!, 'base64url').toString('utf8')) as Record<string, unknown>;
}

export function headerOf(jwt: string): Record<string, unknown> {
  return JSON.parse(Buffer.from(jwt.split('.')[0]!, 'base64url').toString('utf8')) as Record<string, unknown>;
}

export interface BearerAnswer {
  status: number;
  headers: Headers;
  data?: Record<string, unknown> | null;
  errors?: Array<{ message: string; extensions?: Record<string, unknown> }>;
}

/** POSTs a GraphQL operation to the gateway with `Authorization: Bearer <token>` (and any other headers). */
export async function bearerRequest(
  gatewayUrl: string,
  token: string | undefined,
  query: string,
  options: { variables?: Record<string, unknown>; headers?: Record<string, string> } = {},
): Promise<BearerAnswer> {
  const response = await fetch(`${gatewayUrl}/graphql`, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      ...(token === undefined ? {} : { authorization: `Bearer ${token}` }),
      ...options.headers,
    },
    body: JSON.stringify({ query, variables: options.variables }),
  });
  const body = (await response.json()) as Omit<BearerAnswer, 'status' | 'headers'>;
  return { status: response.status, headers: response.headers, ...body };
}

/**
 * A graphql-ws client as a native app opens one: no cookie, no Origin, the access token in
 * `connection_init` (`payload` replaces it, for malformed ones).
 */
export function bearerSocket(
  gatewayUrl: string,
  token: string,
  payload: Record<string, unknown> = { authorization: `Bearer ${token}` },
): { client: Client; closed: Promise<{ code: number; reason: string }> } {
  let resolveClosed!: (value: { code: number; reason: string }) => void;
  const closed = new Promise<{ code: number; reason: string }>((resolve) => (resolveClosed = resolve));
  const client = createClient({
    url: `${gatewayUrl.replace(/^http/, 'ws')}/graphql`,
    lazy: false,
    retryAttempts: 0,
    webSocketImpl: WebSocket,
    connectionParams: payload,
    on: {
      closed: (event) =>
        resolveClosed({
          code: (event as { code: number }).code,
          reason: String((event as { reason: unknown }).reason),
        }),
    },
    onNonLazyError: () => undefined,
  });
  track(() => client.dispose());
  return { client, closed };
}
