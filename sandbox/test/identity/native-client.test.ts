import * as oidc from 'openid-client';
import { describe, expect, it } from 'vitest';
import { createLogger } from '@open-finance-gateway/common/logger';
import { createSandbox } from '../../src/sandbox.js';
import { Browser, signInAtProvider } from '../../src/testing/index.js';
import { track } from '../support/leftovers.js';

const GATEWAY = 'https://gateway.example.test';
const EMAIL = 'aroha@demo.example';

/** The sandbox's provider with a gateway registered as a resource, and the native app's view of it (public client). */
async function nativeApp() {
  const sandbox = createSandbox({ logger: createLogger({ level: 'silent' }), headerPrefix: 'X-Service' });
  await sandbox.start();
  track(() => sandbox.stop());
  sandbox.identity.registerResource(GATEWAY);
  const config = await oidc.discovery(
    new URL(sandbox.identity.issuer),
    sandbox.identity.nativeClientId,
    undefined,
    oidc.None(),
    { execute: [oidc.allowInsecureRequests] },
  );
  return { sandbox, config };
}

const decode = (part: string) => JSON.parse(Buffer.from(part, 'base64url').toString('utf8')) as Record<string, unknown>;

describe('the sandbox identity provider for native apps', () => {
  it.each([
    ['a loopback port of its own choosing (RFC 8252 §7.3)', 'http://127.0.0.1:61234/callback'],
    ['its custom scheme (RFC 8252 §7.1)', 'nz.sandbox.native:/oauth2redirect'],
  ])(
    'signs a public client in with PKCE and no secret, returning to %s, with an RFC 9068 access token for the gateway',
    async (_name, redirectUri) => {
      const { sandbox, config } = await nativeApp();
      const verifier = oidc.randomPKCECodeVerifier();
      const state = oidc.randomState();
      const url = oidc.buildAuthorizationUrl(config, {
        redirect_uri: redirectUri,
        scope: 'openid',
        code_challenge: await oidc.calculatePKCECodeChallenge(verifier),
        code_challenge_method: 'S256',
        state,
      });
      const back = await signInAtProvider(new Browser(), sandbox, url.href, EMAIL, redirectUri);
      const tokens = await oidc.authorizationCodeGrant(config, back, {
        pkceCodeVerifier: verifier,
        expectedState: state,
        idTokenExpected: true,
      });
      const [header, payload] = tokens.access_token.split('.');
      expect(decode(header!)).toMatchObject({ typ: 'at+jwt', alg: 'RS256', kid: expect.any(String) });
      expect(decode(payload!)).toMatchObject({
        iss: sandbox.identity.issuer,
        aud: GATEWAY,
        client_id: sandbox.identity.nativeClientId,
        sub: sandbox.identity.users.byEmail(EMAIL)!.sub,
        amr: expect.arrayContaining(['otp']),
        auth_time: expect.any(Number),
        sid: expect.any(String),
      });
    },
  );

  it('refuses a native sign-in without PKCE, or returning to an address it did not register', async () => {
    const { config } = await nativeApp();
    const browser = new Browser();
    const withoutPkce = oidc.buildAuthorizationUrl(config, {
      redirect_uri: 'http://127.0.0.1:61234/callback',
      scope: 'openid',
      state: oidc.randomState(),
    });
    const noPkce = await browser.request(withoutPkce.href);
    expect(noPkce.status).toBe(303);
    expect(new URL(noPkce.location!).searchParams.get('error')).toBe('invalid_request');
    const elsewhere = oidc.buildAuthorizationUrl(config, {
      redirect_uri: 'https://evil.example/callback',
      scope: 'openid',
      code_challenge: await oidc.calculatePKCECodeChallenge(oidc.randomPKCECodeVerifier()),
      code_challenge_method: 'S256',
      state: oidc.randomState(),
    });
    const refused = await browser.request(elsewhere.href);
    expect(refused.status).toBe(400);
    expect(refused.location).toBeUndefined();
  });

  it('asks the user to allow the app, and says no to the app when they cancel', async () => {
    const { sandbox, config } = await nativeApp();
    const browser = new Browser();
    const redirectUri = 'http://127.0.0.1:61235/callback';
    const url = oidc.buildAuthorizationUrl(config, {
      redirect_uri: redirectUri,
      scope: 'openid',
      code_challenge: await oidc.calculatePKCECodeChallenge(oidc.randomPKCECodeVerifier()),
      code_challenge_method: 'S256',
      state: 'cancel-state',
    });
    const user = sandbox.identity.users.byEmail(EMAIL)!;
    const login = (await browser.request(url.href)).location!;
    await browser.request(`${login}/login`, {
      method: 'POST',
      body: new URLSearchParams({ email: EMAIL, secret: user.demoSecret! }),
    });
    let hop = await browser.request(`${login}/verify`, {
      method: 'POST',
      body: new URLSearchParams({ code: sandbox.identity.currentTotp(EMAIL)! }),
    });
    while (hop.location) hop = await browser.request(hop.location);
    expect(hop.text).toContain('Allow Open Finance Demo on this device?');
    expect(hop.text).toContain(redirectUri);
    const consent = /action="(\/interaction\/[^"]+\/consent)"/.exec(hop.text)![1]!;
    hop = await browser.request(new URL(consent, url).href, {
      method: 'POST',
      body: new URLSearchParams({ decision: 'deny' }),
    });
    while (hop.location && !hop.location.startsWith(redirectUri)) hop = await browser.request(hop.location);
    const back = new URL(hop.location!);
    expect(back.searchParams.get('error')).toBe('access_denied');
    expect(back.searchParams.get('code')).toBeNull();
  });
});
