import { describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { forgeJwt } from '@open-finance-gateway/sandbox/testing';
import type { Browser } from '../../support/browser.js';
import { appUserId, signIn, startGateway, type TestGateway } from '../../support/gateway.js';
import { track } from '../../support/leftovers.js';
import { accessTokenClaims, bearerSocket, nowSeconds } from '../../support/native-app.js';
import { sessionCookie } from '../../support/session-cookie.js';
import { socketClient, subscribe, wsUrl } from '../../support/sockets.js';

/**
 * graphql-ws without a cookie: the access token in `connection_init`. Each bad payload closes the
 * socket with a code and costs the platform nothing. (Before this change a socket without a
 * cookie was always closed 4403, whatever its payload: there was no way in for a native app.)
 */
describe('access tokens on graphql-ws', () => {
  const now = nowSeconds;
  const claimsFor = (gateway: TestGateway, extra: Record<string, unknown> = {}) =>
    accessTokenClaims(gateway, appUserId(gateway, 0), 'family-ws', extra);

  async function connected(env: Record<string, string> = {}): Promise<{ gateway: TestGateway; browser: Browser }> {
    const gateway = await startGateway(env);
    const browser = await signIn(gateway, 0);
    await gateway.waitForEvent('webhooks-registered');
    return { gateway, browser };
  }

  /** A raw socket that sends `connection_init` with this payload (JSON text as given). */
  function initWith(gateway: TestGateway, payload: string, headers: Record<string, string> = {}) {
    const socket = new WebSocket(wsUrl(gateway), 'graphql-transport-ws', { headers });
    track(() => socket.terminate());
    socket.on('error', () => undefined);
    const closed = new Promise<{ code: number; reason: string }>((resolve) =>
      socket.once('close', (code, reason) => resolve({ code, reason: reason.toString() })),
    );
    socket.once('open', () => socket.send(`{"type":"connection_init","payload":${payload}}`));
    return closed;
  }

  it('serves a subscription to a socket that authenticates with a token in connection_init', async () => {
    const { gateway } = await connected();
    const { client } = bearerSocket(gateway.url, forgeJwt(claimsFor(gateway)));
    const events = await subscribe<{ accountEvents: { code: string } }>(
      gateway,
      client,
      'subscription { accountEvents { code } }',
      'ACCOUNT',
    );
    expect(gateway.events('subscription-started')).toContainEqual({ userId: appUserId(gateway, 0), type: 'ACCOUNT' });
    await events.return();
  });

  it.each([
    ['a payload that is not an object', '"garbage"', 4400],
    ['an authorization that is not a string', '{"authorization":42}', 4400],
    ['an authorization that is not a bearer token', '{"authorization":"Basic dXNlcjpwYXNz"}', 4401],
    ['a bearer token that is not a JWT', '{"authorization":"Bearer garbage"}', 4401],
  ])(
    'closes a socket whose connection_init has %s with a code, and calls nothing upstream',
    async (_name, payload, code) => {
      const { gateway } = await connected();
      const before = gateway.sandbox.requests().length;
      expect((await initWith(gateway, payload)).code).toBe(code);
      expect(gateway.sandbox.requests().length).toBe(before);
    },
  );

  it('closes 4401 for an expired token and for a token of a user whose access ended', async () => {
    const { gateway, browser } = await connected();
    const expired = forgeJwt(claimsFor(gateway, { iat: now() - 900, exp: now() - 300 }));
    expect(await initWith(gateway, JSON.stringify({ authorization: `Bearer ${expired}` }))).toEqual({
      code: 4401,
      reason: 'TOKEN_EXPIRED',
    });
    const signedOut = await browser.request(`${gateway.url}/graphql`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ query: 'mutation { signOutEverywhere }' }),
    });
    expect(JSON.parse(signedOut.text)).toEqual({ data: { signOutEverywhere: true } });
    const before = gateway.sandbox.requests().length;
    const issuedBefore = forgeJwt(claimsFor(gateway));
    expect(await initWith(gateway, JSON.stringify({ authorization: `Bearer ${issuedBefore}` }))).toEqual({
      code: 4401,
      reason: 'ACCESS_ENDED',
    });
    expect(gateway.sandbox.requests().length).toBe(before);
  });

  it('refuses a cookie and a token together as ambiguous (4400)', async () => {
    const { gateway, browser } = await connected();
    const cookie = sessionCookie(browser, gateway.url);
    const token = forgeJwt(claimsFor(gateway));
    expect(await initWith(gateway, JSON.stringify({ authorization: `Bearer ${token}` }), { cookie })).toEqual({
      code: 4400,
      reason: 'AMBIGUOUS_CREDENTIALS',
    });
  });

  it('closes a bearer socket with 4401 when its token expires', async () => {
    const { gateway } = await connected();
    const { client, closed } = bearerSocket(gateway.url, forgeJwt(claimsFor(gateway, { exp: now() + 2 })));
    await subscribe(gateway, client, 'subscription { accountEvents { code } }', 'ACCOUNT');
    expect(await closed).toEqual({ code: 4401, reason: 'Access token expired' });
  });

  it('counts bearer sockets in the caps per session and per user', async () => {
    const { gateway, browser } = await connected({ WS_MAX_SOCKETS_PER_SESSION: '1', WS_MAX_SOCKETS_PER_USER: '2' });
    const token = forgeJwt(claimsFor(gateway));
    const first = bearerSocket(gateway.url, token);
    await subscribe(gateway, first.client, 'subscription { accountEvents { code } }', 'ACCOUNT');
    // The same token family is one session: a second socket passes WS_MAX_SOCKETS_PER_SESSION.
    expect((await bearerSocket(gateway.url, token).closed).code).toBe(4429);
    // The browser's socket is the user's second; a third socket (another device) passes the user's cap.
    const cookieSocket = socketClient(gateway, browser);
    await subscribe(gateway, cookieSocket.client, 'subscription { accountEvents { code } }', 'ACCOUNT');
    const other = forgeJwt(claimsFor(gateway, { sid: 'another-family' }));
    expect((await bearerSocket(gateway.url, other).closed).code).toBe(4429);
  });
});
