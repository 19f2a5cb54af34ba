import { describe, expect, it } from 'vitest';
import { Browser } from '../support/browser.js';
import { MFA_DEMO_USERS, signInToApp, startConnection, startGateway } from '../support/gateway.js';

describe('a frontend developer\u2019s first hour', () => {
  it('answers 401 with UNAUTHENTICATED in the media type the client asked for', async () => {
    const gateway = await startGateway();
    const ask = (accept?: string) =>
      fetch(`${gateway.url}/graphql`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...(accept ? { accept } : {}) },
        body: JSON.stringify({ query: '{ me { id } }' }),
      });
    const graphqlResponse = await ask('application/graphql-response+json, application/json;q=0.9');
    expect(graphqlResponse.status).toBe(401);
    expect(graphqlResponse.headers.get('content-type')).toContain('application/graphql-response+json');
    expect(await graphqlResponse.json()).toEqual({
      errors: [{ message: expect.any(String), extensions: { code: 'UNAUTHENTICATED' } }],
    });
    const plain = await ask();
    expect(plain.headers.get('content-type')).toContain('application/json');
  });

  it('sends a sign-in started at 127.0.0.1 to the public origin first when PUBLIC_URL is not set', async () => {
    const gateway = await startGateway();
    const publicOrigin = new URL(gateway.url);
    const viaLoopback = new URL(gateway.app.listenUrl);
    expect(viaLoopback.host).not.toBe(publicOrigin.host);
    const started = await fetch(`${viaLoopback.origin}/auth/login?returnTo=%2Fgraphql`, { redirect: 'manual' });
    expect(started.status).toBe(302);
    expect(started.headers.get('location')).toBe(
      `${publicOrigin.origin}/auth/login?returnTo=%2Fgraphql&atPublicOrigin=1`,
    );
    // At the public origin it goes to the identity provider, which returns to the public origin.
    const atPublic = await fetch(started.headers.get('location')!, { redirect: 'manual' });
    expect(atPublic.status).toBe(302);
    const authorize = new URL(atPublic.headers.get('location')!);
    expect(authorize.origin).toBe(new URL(gateway.sandbox.identity.issuer).origin);
    expect(authorize.searchParams.get('redirect_uri')).toBe(`${publicOrigin.origin}/auth/oidc/callback`);
    // The whole way from the loopback address: signed in, then on to the consumer page and the platform's consent.
    const browser = new Browser();
    const landed = await signInToApp(browser, gateway.sandbox, viaLoopback.origin, MFA_DEMO_USERS[0]!);
    expect(landed.location).toContain('/auth/consumer-info');
    const connect = await startConnection(browser, publicOrigin.origin);
    expect(connect.location).toContain('/oauth/authorize');
  });

  it("does not redirect a request on another port than PUBLIC_URL's (a proxy in front presents its upstream's Host)", async () => {
    const gateway = await startGateway({ PUBLIC_URL: 'https://gateway.example.test' });
    const started = await fetch(`${gateway.app.listenUrl}/auth/login`, { redirect: 'manual' });
    expect(started.headers.get('location')).toContain(gateway.sandbox.identity.issuer);
  });
});
