import { describe, expect, it } from 'vitest';
import { Browser } from '../support/browser.js';
import { MFA_DEMO_USERS, startConnection, startGateway } from '../support/gateway.js';
import { signInAtProvider } from '../support/identity.js';
import { freePort } from '../support/instances.js';

/** A gateway whose PUBLIC_URL says localhost, reached by the browser at 127.0.0.1 (the same process). */
async function localhostGateway() {
  const port = await freePort();
  const gateway = await startGateway({ PORT: String(port), PUBLIC_URL: `http://localhost:${port}` });
  return { gateway, publicOrigin: `http://localhost:${port}`, loopback: `http://127.0.0.1:${port}` };
}

describe('a sign-in started at another address than PUBLIC_URL', () => {
  it('signs in from 127.0.0.1 with PUBLIC_URL on localhost: sent to the public origin first, never OAUTH_STATE_FOREIGN', async () => {
    const { gateway, publicOrigin, loopback } = await localhostGateway();
    const browser = new Browser();
    const started = await browser.request(`${loopback}/auth/login?returnTo=%2Fgraphql%3Fq%3D1`);
    expect(started.status).toBe(302);
    const moved = new URL(started.location!);
    expect(moved.origin).toBe(publicOrigin);
    expect(moved.pathname).toBe('/auth/login');
    expect(moved.searchParams.get('returnTo')).toBe('/graphql?q=1');

    // At the public origin: on to the identity provider, which comes back to the public callback.
    const atPublic = await browser.request(moved.href);
    expect(atPublic.status).toBe(302);
    const authorize = new URL(atPublic.location!);
    expect(authorize.origin).toBe(new URL(gateway.sandbox.identity.issuer).origin);
    const callbackUrl = `${publicOrigin}/auth/oidc/callback`;
    expect(authorize.searchParams.get('redirect_uri')).toBe(callbackUrl);
    const back = await signInAtProvider(browser, gateway.sandbox, authorize.href, MFA_DEMO_USERS[0]!, callbackUrl);
    const landed = await browser.request(back.href);
    expect(landed.status, landed.text.slice(0, 300)).toBe(303);
    expect(landed.location).toBe(`${publicOrigin}/auth/consumer-info?returnTo=%2Fgraphql%3Fq%3D1`);
    // Signed in on the public origin: the consumer page leads on to the platform's consent.
    const connect = await startConnection(browser, publicOrigin);
    expect(connect.location).toContain('/oauth/authorize');
  });

  it('keeps returnTo safe across the move: an off-site target still lands on /graphql', async () => {
    const { gateway, publicOrigin, loopback } = await localhostGateway();
    const browser = new Browser();
    const started = await browser.request(`${loopback}/auth/login?returnTo=${encodeURIComponent('//evil.example')}`);
    expect(new URL(started.location!).origin).toBe(publicOrigin);
    const atPublic = await browser.request(started.location!);
    const callbackUrl = `${publicOrigin}/auth/oidc/callback`;
    const back = await signInAtProvider(browser, gateway.sandbox, atPublic.location!, MFA_DEMO_USERS[0]!, callbackUrl);
    const landed = await browser.request(back.href);
    expect(landed.status).toBe(303);
    expect(landed.location).toBe(`${publicOrigin}/auth/consumer-info?returnTo=%2Fgraphql`);
  });

  it('moves the browser at most once: a proxy presenting another name on the same port cannot make it loop', async () => {
    const port = await freePort();
    const publicOrigin = `http://gateway.example.test:${port}`;
    const gateway = await startGateway({ PORT: String(port), PUBLIC_URL: publicOrigin });
    const first = await fetch(`${gateway.app.listenUrl}/auth/login?returnTo=%2Fgraphql`, { redirect: 'manual' });
    expect(first.status).toBe(302);
    const moved = new URL(first.headers.get('location')!);
    expect(moved.origin).toBe(publicOrigin);
    // The proxy forwards the moved request with its upstream's Host again: no second move.
    const again = await fetch(`${gateway.app.listenUrl}${moved.pathname}${moved.search}`, { redirect: 'manual' });
    expect(again.status).toBe(302);
    expect(again.headers.get('location')).toContain(gateway.sandbox.identity.issuer);
  });
});
