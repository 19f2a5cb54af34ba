import { print } from 'graphql';
import { beforeEach, describe, expect, it } from 'vitest';
import { forgeJwt } from '@open-finance-gateway/sandbox/testing';
import { AccountsDocument, RevokeAllAccessDocument } from '../__generated__/graphql.js';
import type { Browser } from '../support/browser.js';
import { appUserId, execute, signIn, startGateway, type TestGateway } from '../support/gateway.js';
import { accessTokenClaims, bearerRequest, nowSeconds } from '../support/native-app.js';
import { sessionCookie } from '../support/session-cookie.js';

/**
 * Access tokens over HTTP, against the sandbox: every bad token is refused with a coded answer and
 * costs the platform nothing. (Before this change the gateway had no bearer path at all: each of
 * these requests was a 401 "sign in first" for want of a cookie, with no code naming the token's
 * fault, and the valid token below was refused the same way.)
 */
describe('access tokens on HTTP', () => {
  let gateway: TestGateway;
  let cookieUser: Browser;
  let userId: string;
  const ACCOUNTS = print(AccountsDocument);
  const now = nowSeconds;
  const claims = (extra: Record<string, unknown> = {}) => accessTokenClaims(gateway, userId, 'family-http', extra);
  const platformCalls = () => gateway.sandbox.requests().length;

  beforeEach(async () => {
    gateway = await startGateway();
    // The same app user signs in by cookie and connects their bank.
    cookieUser = await signIn(gateway, 0);
    userId = appUserId(gateway, 0);
    // The connection's webhook registrations run after the callback: counted before any test counts.
    await gateway.waitForEvent('webhooks-registered');
  });

  it('serves the same user, with the same accounts, by cookie and by access token', async () => {
    const byCookie = await execute(gateway, cookieUser, AccountsDocument);
    const byToken = await bearerRequest(gateway.url, forgeJwt(claims()), ACCOUNTS);
    expect(byToken.status).toBe(200);
    expect(byToken.errors).toBeUndefined();
    expect(byToken.data).toEqual(byCookie.data);
    expect((byCookie.data?.accounts ?? []).length).toBeGreaterThan(0);
  });

  it.each([
    ['a token for another audience', () => forgeJwt(claims({ aud: 'https://other-api.example' })), 'TOKEN_AUDIENCE'],
    ['a token from another issuer', () => forgeJwt(claims({ iss: 'https://evil.example' })), 'TOKEN_ISSUER'],
    ['an expired token', () => forgeJwt(claims({ iat: now() - 900, exp: now() - 300 })), 'TOKEN_EXPIRED'],
    ['a token not yet valid', () => forgeJwt(claims({ nbf: now() + 300 })), 'TOKEN_NOT_YET_VALID'],
    ['alg: none', () => forgeJwt(claims(), { as: 'none' }), 'TOKEN_ALGORITHM'],
    ['HS256 keyed with the issuer public key', () => forgeJwt(claims(), { as: 'hs256-public-key' }), 'TOKEN_ALGORITHM'],
    ['an ID token (typ JWT)', () => forgeJwt(claims(), { header: { typ: 'JWT' } }), 'TOKEN_TYPE'],
    ['a client not on the list', () => forgeJwt(claims({ client_id: 'another-app' })), 'TOKEN_CLIENT'],
    ['an 8 KB token', () => forgeJwt(claims({ padding: 'x'.repeat(8 * 1024) })), 'TOKEN_TOO_LARGE'],
  ])('refuses %s with a coded 401 and no platform call', async (_name, token, reason) => {
    const before = platformCalls();
    const answer = await bearerRequest(gateway.url, token(), ACCOUNTS);
    expect(answer.status).toBe(401);
    expect(answer.headers.get('www-authenticate')).toBe('Bearer error="invalid_token"');
    expect(answer.errors?.[0]?.extensions).toEqual({ code: 'UNAUTHENTICATED', reason });
    expect(platformCalls()).toBe(before);
  });

  it('holds the key refetch budget against an unknown kid sent again and again', async () => {
    const before = platformCalls();
    const reasons = new Set<unknown>();
    for (let i = 0; i < 30; i += 1) {
      const answer = await bearerRequest(
        gateway.url,
        forgeJwt(claims(), { header: { kid: `made-up-${i}` } }),
        ACCOUNTS,
      );
      reasons.add(answer.errors?.[0]?.extensions?.reason);
    }
    // ACCESS_TOKEN_KEY_FETCHES_PER_MINUTE (10) refetches, then the budget answers (503, retry later).
    expect(reasons).toEqual(new Set(['TOKEN_KEY_UNKNOWN', 'TOKEN_KEY_BUDGET']));
    const spent = await bearerRequest(gateway.url, forgeJwt(claims(), { header: { kid: 'one-more' } }), ACCOUNTS);
    expect(spent.status).toBe(503);
    expect(spent.errors?.[0]?.extensions).toEqual({ code: 'SERVICE_UNAVAILABLE', reason: 'TOKEN_KEY_BUDGET' });
    // The real key still answers.
    expect((await bearerRequest(gateway.url, forgeJwt(claims()), ACCOUNTS)).status).toBe(200);
    expect(platformCalls()).toBe(before + 1);
  });

  it('refuses a token whose sign-in had no second factor: MFA_REQUIRED, how to sign in again, no platform call', async () => {
    const before = platformCalls();
    const answer = await bearerRequest(gateway.url, forgeJwt(claims({ amr: ['pwd'], sid: 'pwd-only' })), ACCOUNTS);
    expect(answer.errors?.[0]?.extensions).toEqual({
      code: 'MFA_REQUIRED',
      authorize: { max_age: 0, prompt: 'login' },
    });
    expect(platformCalls()).toBe(before);
  });

  it('refuses a request with both the session cookie and an access token as ambiguous', async () => {
    const before = platformCalls();
    const answer = await bearerRequest(gateway.url, forgeJwt(claims()), ACCOUNTS, {
      headers: { cookie: sessionCookie(cookieUser, gateway.url) },
    });
    expect(answer.status).toBe(400);
    expect(answer.errors?.[0]?.extensions).toEqual({ code: 'UNAUTHENTICATED', reason: 'AMBIGUOUS_CREDENTIALS' });
    expect(platformCalls()).toBe(before);
  });

  it('refuses an access token sent from a browser origin not in ALLOWED_ORIGINS', async () => {
    const before = platformCalls();
    const answer = await fetch(`${gateway.url}/graphql?query=${encodeURIComponent('{ accounts { id } }')}`, {
      headers: { authorization: `Bearer ${forgeJwt(claims())}`, origin: 'https://evil.example' },
    });
    expect(answer.status).toBe(403);
    expect(((await answer.json()) as { errors: Array<{ extensions: unknown }> }).errors[0]!.extensions).toEqual({
      code: 'FORBIDDEN',
      reason: 'ORIGIN_NOT_ALLOWED',
    });
    expect(platformCalls()).toBe(before);
  });

  it('refuses a malformed Authorization header', async () => {
    const answer = await fetch(`${gateway.url}/graphql`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: 'Basic dXNlcjpwYXNz' },
      body: JSON.stringify({ query: '{ accounts { id } }' }),
    });
    expect(answer.status).toBe(401);
    expect(answer.headers.get('www-authenticate')).toBe('Bearer error="invalid_request"');
  });

  it('ends every access token issued before revokeAllAccess, and the cookie session with it', async () => {
    const token = forgeJwt(claims({ sid: 'family-revoked' }));
    expect((await bearerRequest(gateway.url, token, ACCOUNTS)).status).toBe(200);
    const revoked = await bearerRequest(gateway.url, token, print(RevokeAllAccessDocument));
    expect(revoked.errors).toBeUndefined();
    const before = platformCalls();
    const again = await bearerRequest(gateway.url, token, ACCOUNTS);
    expect(again.status).toBe(401);
    expect(again.errors?.[0]?.extensions).toEqual({ code: 'UNAUTHENTICATED', reason: 'ACCESS_ENDED' });
    // Another device's token of the same age is refused too; the browser's session is gone.
    const other = await bearerRequest(gateway.url, forgeJwt(claims({ sid: 'another-device' })), ACCOUNTS);
    expect(other.errors?.[0]?.extensions?.reason).toBe('ACCESS_ENDED');
    expect((await execute(gateway, cookieUser, AccountsDocument)).status).toBe(401);
    expect(platformCalls()).toBe(before);
  });
});
