import { describe, expect, it } from 'vitest';
import { MeDocument } from '../__generated__/graphql.js';
import { execute, signIn, startGateway, type TestGateway } from '../support/gateway.js';
import { platformStatus } from '../support/platform-tokens.js';
import { connectBank, consentToBank, signInOnly } from '../support/sign-in-steps.js';

function tokenRevocations(gateway: TestGateway) {
  return gateway.sandbox.requests({ service: 'core', method: 'DELETE', path: '/v1/token' });
}

describe('tokens the gateway forgets are revoked; the connection is not forgotten at sign-out', () => {
  it('keeps the connection through a sign-out: the consent belongs to the app user, not to a session', async () => {
    const gateway = await startGateway();
    const first = await signIn(gateway);
    const second = await signIn(gateway);
    const [token] = gateway.sandbox.issuedTokens();
    expect(gateway.sandbox.issuedTokens()).toEqual([token]);

    const logout = await first.request(`${gateway.url}/auth/logout`, { method: 'POST' });
    expect(logout.status).toBe(204);
    expect(tokenRevocations(gateway)).toEqual([]);
    expect(await platformStatus(gateway, token!)).toBe(200);
    expect((await execute(gateway, first, MeDocument)).status).toBe(401);
    expect((await execute(gateway, second, MeDocument)).status).toBe(200);
  });

  it('revokes the old token when the user connects again (the new consent replaces the connection)', async () => {
    const gateway = await startGateway();
    const browser = await signIn(gateway);
    const oldToken = gateway.sandbox.issuedTokens().at(-1)!;
    const landed = await connectBank(browser, gateway.url);
    expect(landed.status).toBe(303);
    expect(await platformStatus(gateway, oldToken)).toBe(403);
    expect(tokenRevocations(gateway).map((request) => request.headers.authorization)).toEqual([`Bearer ${oldToken}`]);
    expect((await execute(gateway, browser, MeDocument)).status).toBe(200);
  });
});

describe('a token the platform refuses', () => {
  it('removes that connection and ends only the sessions holding its token', async () => {
    const gateway = await startGateway();
    // User A's connection, whose code an attacker then replays at the platform: the platform
    // revokes the token that code bought (RFC 6749 §4.1.2), and only that token.
    const { browser: victim } = await signInOnly(gateway);
    const callback = await consentToBank(victim, gateway.url);
    expect((await victim.request(callback.href)).status).toBe(303);
    const other = await signIn(gateway, 1);

    const { appToken, appSecret } = gateway.sandbox.credentials;
    const replay = await fetch(`${gateway.sandbox.coreUrl}/v1/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        grant_type: 'authorization_code',
        code: callback.searchParams.get('code'),
        redirect_uri: `${gateway.url}/auth/callback`,
        client_id: appToken,
        client_secret: appSecret,
      }),
    });
    expect(replay.status).toBe(400);

    const refused = await execute(gateway, victim, MeDocument);
    expect(refused.errors?.[0]?.extensions).toMatchObject({ code: 'UNAUTHENTICATED', reason: 'ACCESS_REVOKED' });
    expect((await execute(gateway, victim, MeDocument)).status).toBe(401);
    const unaffected = await execute(gateway, other, MeDocument);
    expect(unaffected.status).toBe(200);
    expect(unaffected.data?.me.id).toMatch(/^user_/);
    // The dead connection is gone: signing in again asks for a new consent.
    const { landed: again } = await signInOnly(gateway);
    expect(again.location).toContain('/auth/consumer-info');
  });
});
