import { describe, expect, it } from 'vitest';
import { ConnectionDocument, MeDocument } from '../__generated__/graphql.js';
import { Browser } from '../support/browser.js';
import {
  approveConsent,
  execute,
  MFA_DEMO_USERS,
  signIn,
  startConnection,
  startGateway,
  type TestGateway,
} from '../support/gateway.js';
import { signInAtProvider } from '../support/identity.js';
import { sessionCookieName } from '../support/session-cookie.js';
import { connectBank, consentToBank, signInOnly } from '../support/sign-in-steps.js';

/** A browser whose app user has signed in (with a second factor) but not connected their bank yet. */
async function appBrowser(gateway: TestGateway, userIndex = 0): Promise<Browser> {
  const { browser, landed } = await signInOnly(gateway, userIndex);
  expect(landed.location).toContain('/auth/consumer-info');
  return browser;
}

/** Walks the connection flow up to the platform's redirect back, returning the callback URL and the browser. */
async function consentedCallback(gateway: TestGateway, browser?: Browser) {
  const signedIn = browser ?? (await appBrowser(gateway));
  return { browser: signedIn, callback: await consentToBank(signedIn, gateway.url) };
}

function tokenExchanges(gateway: TestGateway) {
  return gateway.sandbox.requests({ service: 'core', method: 'POST', path: '/v1/token' });
}

/** A callback refused with a coded 400 page, the platform asked for `exchanges` token exchanges in all. */
function expectRefused(gateway: TestGateway, response: { status: number; text: string }, code: string, exchanges = 0) {
  expect(response.status).toBe(400);
  expect(response.text).toContain(code);
  expect(tokenExchanges(gateway)).toHaveLength(exchanges);
}

describe('connecting the bank (the platform OAuth flow)', () => {
  it('redirects to the authorize page with the OAuth parameters and a fresh state bound to the browser', async () => {
    const gateway = await startGateway();
    const browser = await appBrowser(gateway);
    const first = await startConnection(browser, gateway.url);
    const second = await startConnection(browser, gateway.url);

    expect(first.status).toBe(302);
    const target = new URL(first.location!);
    expect(target.origin + target.pathname).toBe(gateway.sandbox.authorizeUrl);
    expect(Object.fromEntries(target.searchParams)).toMatchObject({
      response_type: 'code',
      client_id: gateway.sandbox.credentials.appToken,
      redirect_uri: `${gateway.url}/auth/callback`,
      scope: 'ENDURING_CONSENT',
    });
    const state = target.searchParams.get('state')!;
    expect(state.length).toBeGreaterThanOrEqual(40);
    expect(new URL(second.location!).searchParams.get('state')).not.toBe(state);
    // Bound to the browser's binding cookie (set at sign-in, HttpOnly, SameSite=Lax).
    // Named for the gateway's port on plain http: a second gateway on this host has its own.
    expect(browser.cookie(new URL(gateway.url).host, `gw_oauth_${new URL(gateway.url).port}`)).toEqual(
      expect.any(String),
    );
    const stranger = await new Browser().request(`${gateway.url}/auth/connect`);
    expect(stranger.location).toContain('/auth/login?returnTo=%2Fauth%2Fconnect');
  });

  it('completes the flow: code exchanged server-side, HttpOnly SameSite session cookie, me answered', async () => {
    const gateway = await startGateway();
    const { browser, landed: signedIn } = await signInOnly(gateway);
    // Named for the gateway's port on plain http (cookies ignore ports): gw_session_<port>.
    const name = `gw_session_${new URL(gateway.url).port}`;
    const cookie = signedIn.headers.getSetCookie().find((header) => header.startsWith(`${name}=`))!;
    expect(cookie).toMatch(/HttpOnly/);
    expect(cookie).toMatch(/SameSite=Lax/);
    expect(cookie).not.toMatch(/Secure/); // http public URL in tests; https turns it on
    const { callback } = await consentedCallback(gateway, browser);
    const landed = await browser.request(callback.href);

    expect(landed.status).toBe(303);
    expect(landed.headers.get('location')).toBe('/graphql');
    const [exchange] = tokenExchanges(gateway);
    expect(exchange!.body).toEqual({
      grant_type: 'authorization_code',
      code: callback.searchParams.get('code'),
      redirect_uri: `${gateway.url}/auth/callback`,
      client_id: gateway.sandbox.credentials.appToken,
      client_secret: gateway.sandbox.credentials.appSecret,
    });

    const me = await execute(gateway, browser, MeDocument);
    expect(me.status).toBe(200);
    expect(me.data?.me).toMatchObject({
      id: expect.stringMatching(/^user_/),
      email: expect.stringContaining('@'),
      preferredName: expect.any(String),
    });
    expect(Date.parse(me.data!.me.accessGrantedAt!)).not.toBeNaN();
  });

  it('marks cookies Secure and __Host- prefixed when the public URL is https', async () => {
    const gateway = await startGateway({ PUBLIC_URL: 'https://gateway.example.test' });
    const listen = gateway.app.listenUrl;
    const browser = new Browser();
    const appLogin = await browser.request(`${listen}/auth/login`);
    expect(new URL(appLogin.location!).searchParams.get('redirect_uri')).toBe(
      'https://gateway.example.test/auth/oidc/callback',
    );
    expect(appLogin.headers.getSetCookie()[0]).toMatch(/^__Host-gw_oauth=.+; Path=\/; HttpOnly; Secure; SameSite=Lax$/);
    const identified = await signInAtProvider(
      browser,
      gateway.sandbox,
      appLogin.location!,
      MFA_DEMO_USERS[0]!,
      'https://gateway.example.test/auth/oidc/callback',
    );
    // The proxy in front of the gateway would forward these; the test goes to the listener directly.
    const signedIn = await browser.request(`${listen}${identified.pathname}${identified.search}`);
    expect(signedIn.status).toBe(303);
    expect(signedIn.headers.getSetCookie().find((c) => c.includes('gw_session'))).toMatch(
      /^__Host-gw_session=.+; Path=\/; HttpOnly; Secure; SameSite=Lax$/,
    );
    const login = await startConnection(browser, listen);
    expect(new URL(login.location!).searchParams.get('redirect_uri')).toBe(
      'https://gateway.example.test/auth/callback',
    );

    const approved = await approveConsent(browser, login.location!);
    const landed = await browser.request(`${listen}${approved.pathname}${approved.search}`);
    expect(landed.status).toBe(303);
  });

  it('refuses a callback without state, with a coded page and no token exchange', async () => {
    const gateway = await startGateway();
    const { browser, callback } = await consentedCallback(gateway);
    callback.searchParams.delete('state');
    const response = await browser.request(callback.href);
    expectRefused(gateway, response, 'OAUTH_STATE_MISSING');
  });

  it('refuses a state that was already used', async () => {
    const gateway = await startGateway();
    const { browser, callback } = await consentedCallback(gateway);
    expect((await browser.request(callback.href)).status).toBe(303);
    const replay = await browser.request(callback.href);
    expectRefused(gateway, replay, 'OAUTH_STATE_UNKNOWN', 1);
  });

  it('refuses a state issued to another browser', async () => {
    const gateway = await startGateway();
    const { callback } = await consentedCallback(gateway);
    const attacker = await appBrowser(gateway, 1); // has its own binding cookie, not the victim's
    const response = await attacker.request(callback.href);
    expectRefused(gateway, response, 'OAUTH_STATE_FOREIGN');
    // The victim's consent did not land on the attacker's account.
    expect((await execute(gateway, attacker, ConnectionDocument)).data!.connection.connected).toBe(false);
  });

  it('refuses a made-up state', async () => {
    const gateway = await startGateway();
    const { browser, callback } = await consentedCallback(gateway);
    callback.searchParams.set('state', 'x'.repeat(43));
    const response = await browser.request(callback.href);
    expectRefused(gateway, response, 'OAUTH_STATE_UNKNOWN');
  });

  it('reports a cancelled consent without exchanging anything', async () => {
    const gateway = await startGateway();
    const browser = await appBrowser(gateway);
    const denied = await consentToBank(browser, gateway.url, { decision: 'deny' });
    expect(denied.searchParams.get('error')).toBe('access_denied');
    const response = await browser.request(denied.href);
    expectRefused(gateway, response, 'OAUTH_DENIED');
  });

  it('reports a code the platform refuses (expired) as a refused connection, with no connection made', async () => {
    let now = Date.parse('2026-11-21T00:00:00Z');
    const gateway = await startGateway({}, { clock: () => now, sandbox: { codeTtlMs: 60_000 } });
    const { browser, callback } = await consentedCallback(gateway);
    now += 61_000;
    const response = await browser.request(callback.href);
    expectRefused(gateway, response, 'OAUTH_EXCHANGE_REFUSED', 1);
    expect(response.text).toContain('expired_grant');
    expect((await execute(gateway, browser, MeDocument)).errors![0]!.extensions!.code).toBe('NOT_CONNECTED');
  });

  it('answers GraphQL without a session with UNAUTHENTICATED, and with a forged cookie too', async () => {
    const gateway = await startGateway();
    const anonymous = new Browser();
    const response = await execute(gateway, anonymous, MeDocument);
    expect(response.status).toBe(401);
    expect(response.errors?.[0]?.extensions?.code).toBe('UNAUTHENTICATED');

    anonymous.setCookie(new URL(gateway.url).host, sessionCookieName(gateway.url), 'made-up.signature');
    expect((await execute(gateway, anonymous, MeDocument)).errors?.[0]?.extensions?.code).toBe('UNAUTHENTICATED');
    expect(gateway.sandbox.requests({ path: '/v1/me' })).toHaveLength(0);
  });

  it('signs out: the session ends and its cookie stops working', async () => {
    const gateway = await startGateway();
    const browser = await signIn(gateway);
    const host = new URL(gateway.url).host;
    const cookie = browser.cookie(host, sessionCookieName(gateway.url))!;
    expect((await execute(gateway, browser, MeDocument)).status).toBe(200);

    const logout = await browser.request(`${gateway.url}/auth/logout`, { method: 'POST' });
    expect(logout.status).toBe(204);
    expect(browser.cookie(host, sessionCookieName(gateway.url))).toBeUndefined();

    browser.setCookie(host, sessionCookieName(gateway.url), cookie); // a copy of the old cookie is dead too
    expect((await execute(gateway, browser, MeDocument)).errors?.[0]?.extensions?.code).toBe('UNAUTHENTICATED');
  });

  it('refuses a cross-site sign-out', async () => {
    const gateway = await startGateway();
    const browser = await signIn(gateway);
    const logout = await browser.request(`${gateway.url}/auth/logout`, {
      method: 'POST',
      headers: { origin: 'https://evil.example' },
    });
    expect(logout.status).toBe(403);
    expect((await execute(gateway, browser, MeDocument)).status).toBe(200);
  });

  it('ignores an off-site returnTo', async () => {
    const gateway = await startGateway();
    const browser = await appBrowser(gateway);
    const landed = await connectBank(browser, gateway.url, {
      query: `?returnTo=${encodeURIComponent('//evil.example/x')}`,
    });
    expect(landed.headers.get('location')).toBe('/graphql');
  });
});
