import * as oidc from 'openid-client';
import { describe, expect, it } from 'vitest';
import { createLogger } from '@open-finance-gateway/common/logger';
import { passwordProblem, pinProblem } from '../../src/identity/credential-rules.js';
import { hotp, totp } from '../../src/identity/totp.js';
import { createSandbox, type Sandbox } from '../../src/sandbox.js';
import { Browser } from '../../src/testing/index.js';
import { track } from '../support/leftovers.js';

const REDIRECT_URI = 'http://127.0.0.1:9/auth/oidc/callback';

async function identityProvider(clock?: () => number) {
  const sandbox = createSandbox({ logger: createLogger({ level: 'silent' }), headerPrefix: 'X-Service', clock });
  await sandbox.start();
  track(() => sandbox.stop());
  sandbox.identity.registerRedirectUri(REDIRECT_URI);
  // An app, with the certified OpenID client library: discovery, PKCE, state and nonce.
  const config = await oidc.discovery(
    new URL(sandbox.identity.issuer),
    sandbox.identity.clientId,
    sandbox.identity.clientSecret,
    undefined,
    { execute: [oidc.allowInsecureRequests] },
  );
  return { sandbox, config };
}

/** Starts a sign-in as the app would and returns the browser on the provider's login page. */
async function startSignIn(setup: Awaited<ReturnType<typeof identityProvider>>, extra: Record<string, string> = {}) {
  const verifier = oidc.randomPKCECodeVerifier();
  const state = oidc.randomState();
  const nonce = oidc.randomNonce();
  const url = oidc.buildAuthorizationUrl(setup.config, {
    redirect_uri: REDIRECT_URI,
    scope: 'openid email profile',
    code_challenge: await oidc.calculatePKCECodeChallenge(verifier),
    code_challenge_method: 'S256',
    state,
    nonce,
    ...extra,
  });
  const browser = new Browser();
  const toLogin = await browser.request(url.href);
  expect(toLogin.status).toBe(303);
  const loginUrl = toLogin.location!;
  expect(new URL(loginUrl).pathname).toMatch(/^\/interaction\//);
  const page = await browser.request(loginUrl);
  return { browser, loginUrl, page, verifier, state, nonce };
}

type Flow = Awaited<ReturnType<typeof startSignIn>>;

async function submit(flow: Flow, path: string, fields: Record<string, string>) {
  return flow.browser.request(`${flow.loginUrl}${path}`, { method: 'POST', body: new URLSearchParams(fields) });
}

/** Follows the provider's redirects after the last step, up to the app's callback, and redeems the code. */
async function tokensAfter(
  setup: Awaited<ReturnType<typeof identityProvider>>,
  flow: Flow,
  answer: { status: number; location?: string },
) {
  let hop = answer;
  while (hop.location && !hop.location.startsWith(REDIRECT_URI)) hop = await flow.browser.request(hop.location);
  expect(hop.location, 'the provider returned to the app').toMatch(/^http:\/\/127\.0\.0\.1:9\/auth\/oidc\/callback\?/);
  const tokens = await oidc.authorizationCodeGrant(setup.config, new URL(hop.location!), {
    pkceCodeVerifier: flow.verifier,
    expectedState: flow.state,
    expectedNonce: flow.nonce,
  });
  return tokens.claims()!;
}

function secondStep(sandbox: Sandbox, email: string, answer: { location?: string }) {
  expect(answer.location).toMatch(/\/verify$/);
  const user = sandbox.identity.users.byEmail(email)!;
  return user.totpSecret ? totp(user.totpSecret, Date.now()) : sandbox.identity.outbox.latestCodeFor(user.phone!)!;
}

describe('the sandbox identity provider', () => {
  it('signs in with password + authenticator code, password + SMS code, and PIN + SMS code: amr says which', async () => {
    const setup = await identityProvider();
    const demo = setup.sandbox.identity.users.demoUsers();
    const expected: Record<string, string[]> = {
      'aroha@demo.example': ['pwd', 'otp', 'mfa'],
      'james@demo.example': ['pwd', 'sms', 'mfa'],
      'mere@demo.example': ['pin', 'sms', 'mfa'],
    };
    for (const [email, amr] of Object.entries(expected)) {
      const flow = await startSignIn(setup);
      // The login page shows the demo credentials, so a newcomer signs in in seconds.
      expect(flow.page.text).toContain(email);
      const user = demo.find((candidate) => candidate.email === email)!;
      const first = await submit(flow, '/login', { email, secret: user.demoSecret! });
      const code = secondStep(setup.sandbox, email, first);
      const claims = await tokensAfter(setup, flow, await submit(flow, '/verify', { code }));
      expect(claims).toMatchObject({ sub: user.sub, email, amr });
      expect(Math.abs(claims.auth_time! * 1000 - Date.now())).toBeLessThan(60_000);
    }
  });

  it('shows a demo user the authenticator code of the moment on the code page, with the seconds it has left', async () => {
    let now = Date.UTC(2026, 0, 1, 9, 0, 10); // 20 s left in its 30 s step
    const setup = await identityProvider(() => now);
    const aroha = setup.sandbox.identity.users.byEmail('aroha@demo.example')!;
    const flow = await startSignIn(setup);
    const first = await submit(flow, '/login', { email: aroha.email, secret: aroha.demoSecret! });
    const page = await flow.browser.request(first.location!);
    const shown = /data-totp-now>(\d{6})</.exec(page.text)?.[1];
    expect(shown).toBe(totp(aroha.totpSecret!, now));
    expect(/data-seconds-left>(\d+)</.exec(page.text)?.[1]).toBe('20');
    expect(page.text).not.toContain('the sign-in page lists');
    now += 25_000; // the next step: the code shown is still taken
    const claims = await tokensAfter(setup, flow, await submit(flow, '/verify', { code: shown! }));
    expect(claims.amr).toEqual(['pwd', 'otp', 'mfa']);
  });

  it('signs in with a password alone only as single-factor (amr pwd), and refuses wrong secrets and codes', async () => {
    const setup = await identityProvider();
    const flow = await startSignIn(setup);
    const reader = setup.sandbox.identity.users.byEmail('reader@demo.example')!;
    const claims = await tokensAfter(
      setup,
      flow,
      await submit(flow, '/login', { email: reader.email, secret: reader.demoSecret! }),
    );
    expect(claims.amr).toEqual(['pwd']);

    const wrong = await startSignIn(setup);
    expect((await submit(wrong, '/login', { email: 'james@demo.example', secret: 'not-it' })).status).toBe(401);
    const first = await submit(wrong, '/login', { email: 'james@demo.example', secret: 'Tui-Sandbox-2026!' });
    expect(first.status).toBe(303);
    const refused = await submit(wrong, '/verify', { code: '000000' });
    expect(refused.status).toBe(401);
    expect(refused.text).toContain('That code is not right');
  });

  it('limits PIN attempts to 5 a minute per user and per address, and locks the account after repeated failures', async () => {
    let now = Date.parse('2026-11-22T09:00:00Z');
    const setup = await identityProvider(() => now);
    const flow = await startSignIn(setup);
    const guess = (pin: string) => submit(flow, '/login', { email: 'mere@demo.example', secret: pin });
    for (let attempt = 0; attempt < 5; attempt += 1) expect((await guess('97531')).status).toBe(401);
    const limited = await guess('48213'); // even the right PIN: the minute's attempts are used up
    expect(limited.status).toBe(429);
    expect(limited.headers.get('retry-after')).toBe('60');
    now += 61_000;
    for (let attempt = 0; attempt < 5; attempt += 1) expect((await guess('97531')).status).toBe(401);
    now += 61_000;
    // Ten failures in a row: locked for 15 minutes, whatever the PIN.
    const locked = await guess('48213');
    expect(locked.status).toBe(429);
    expect(locked.text).toContain('locked');
    now += 16 * 60_000;
    // The interaction itself expired meanwhile (10 minutes): a new sign-in, and the PIN works again.
    const again = await startSignIn(setup);
    const ok = await submit(again, '/login', { email: 'mere@demo.example', secret: '48213' });
    expect(ok.status).toBe(303);
  });

  it('asks again when the app demands a fresh authentication (max_age=0, the step-up)', async () => {
    const setup = await identityProvider();
    const aroha = setup.sandbox.identity.users.byEmail('aroha@demo.example')!;
    const flow = await startSignIn(setup);
    const first = await submit(flow, '/login', { email: aroha.email, secret: aroha.demoSecret! });
    await tokensAfter(
      setup,
      flow,
      await submit(flow, '/verify', { code: secondStep(setup.sandbox, aroha.email, first) }),
    );
    // Same browser, step-up: the provider shows its login page again instead of reusing the session.
    const stepUp = await startSignIn(setup, { max_age: '0' });
    expect(stepUp.page.text).toContain('Sign in to <span data-app-name>Open Finance Demo</span>');
  });

  it('checks passwords at sign-up and PINs against the rules, and TOTP against RFC 6238', async () => {
    const setup = await identityProvider();
    const signup = (fields: Record<string, string>) =>
      new Browser().request(`${setup.sandbox.identity.issuer}/signup`, {
        method: 'POST',
        body: new URLSearchParams(fields),
      });
    const weak = await signup({ email: 'new@example.co.nz', password: 'short', phone: '+64 21 555 0101' });
    expect(weak.status).toBe(400);
    expect(weak.text).toContain('at least 12 characters');
    const fine = await signup({ email: 'new@example.co.nz', password: 'Harbour-Bridge-42', phone: '+64 21 555 0101' });
    expect(fine.status).toBe(200);
    expect(setup.sandbox.identity.users.byEmail('new@example.co.nz')?.method).toBe('password+sms');

    expect(passwordProblem('alllowercaseletters', 'a@b.c')).toContain('three of');
    expect(pinProblem('1234')).toContain('at least 5');
    expect(pinProblem('77777')).toContain('repeat');
    expect(pinProblem('34567')).toContain('run');
    expect(pinProblem('112233')).toContain('common');
    expect(pinProblem('48213')).toBeUndefined();
    // RFC 6238 appendix B (SHA-1, 8 digits) and RFC 4226 appendix D.
    const rfcSecret = 'GEZDGNBVGY3TQOJQGEZDGNBVGY3TQOJQ'; // "12345678901234567890"
    expect(totp(rfcSecret, 59_000, 8)).toBe('94287082');
    expect(totp(rfcSecret, 1_111_111_109_000, 8)).toBe('07081804');
    expect(hotp(Buffer.from('12345678901234567890'), 1)).toBe('287082');
  });
});
