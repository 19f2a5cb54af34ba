import { describe, expect, it } from 'vitest';
import { createLogger } from '@open-finance-gateway/common/logger';
import { createSandbox } from '@open-finance-gateway/sandbox';
import { AppSignInError, createAppSignIn, DEFAULT_MFA_AMR, mfaStatus } from '../../src/auth/app-sign-in.js';
import { Browser } from '../support/browser.js';
import { signInAtProvider } from '../support/identity.js';
import { track } from '../support/leftovers.js';

const CALLBACK = 'http://127.0.0.1:9/auth/oidc/callback';
const TWO_HOURS = 7_200_000;

async function appAndProvider() {
  const sandbox = createSandbox({ logger: createLogger({ level: 'silent' }), headerPrefix: 'X-Service' });
  await sandbox.start();
  track(() => sandbox.stop());
  sandbox.identity.registerRedirectUri(CALLBACK);
  const signIn = createAppSignIn({
    issuer: sandbox.identity.issuer,
    clientId: sandbox.identity.clientId,
    clientSecret: sandbox.identity.clientSecret,
    allowInsecureIssuer: true,
  });
  return { sandbox, signIn };
}

describe('app sign-in through the identity provider (OpenID Connect)', () => {
  it('signs a user in with PKCE, state and nonce, and reads who they are and how they authenticated', async () => {
    const { sandbox, signIn } = await appAndProvider();
    const started = await signIn.begin(CALLBACK);
    const url = new URL(started.url);
    expect(url.searchParams.get('code_challenge_method')).toBe('S256');
    expect(url.searchParams.get('scope')).toBe('openid email profile');
    const back = await signInAtProvider(new Browser(), sandbox, started.url, 'aroha@demo.example', CALLBACK);
    const identity = await signIn.finish(back, started.pending);
    expect(identity).toMatchObject({
      sub: sandbox.identity.users.byEmail('aroha@demo.example')!.sub,
      email: 'aroha@demo.example',
      amr: ['pwd', 'otp', 'mfa'],
    });
    expect(Math.abs(identity.authTime - Date.now())).toBeLessThan(60_000);
  });

  it('judges MFA by amr and its freshness by auth_time: fresh at 1:59:59, stale at 2:00:01, none with a password alone', async () => {
    const { sandbox, signIn } = await appAndProvider();
    const policy = { acceptedAmr: DEFAULT_MFA_AMR, maxAgeMs: TWO_HOURS };
    for (const [email, expected] of [
      ['james@demo.example', 'fresh'],
      ['mere@demo.example', 'fresh'],
      ['reader@demo.example', 'none'],
    ] as const) {
      const started = await signIn.begin(CALLBACK);
      const back = await signInAtProvider(new Browser(), sandbox, started.url, email, CALLBACK);
      const identity = await signIn.finish(back, started.pending);
      expect(mfaStatus(identity, policy, identity.authTime + 1_000), email).toBe(expected);
      if (expected === 'fresh') {
        expect(mfaStatus(identity, policy, identity.authTime + TWO_HOURS - 1_000)).toBe('fresh');
        expect(mfaStatus(identity, policy, identity.authTime + TWO_HOURS + 1_000)).toBe('stale');
      }
    }
  });

  it('steps up: max_age=0 makes the provider authenticate again, and the new auth_time is fresh', async () => {
    const { sandbox, signIn } = await appAndProvider();
    const browser = new Browser(); // the same browser: the provider has a session for it
    const first = await signIn.begin(CALLBACK);
    await signIn.finish(
      await signInAtProvider(browser, sandbox, first.url, 'aroha@demo.example', CALLBACK),
      first.pending,
    );
    const stepUp = await signIn.begin(CALLBACK, { stepUp: true });
    expect(new URL(stepUp.url).searchParams.get('max_age')).toBe('0');
    const again = await signIn.finish(
      await signInAtProvider(browser, sandbox, stepUp.url, 'aroha@demo.example', CALLBACK),
      stepUp.pending,
    );
    expect(again.authTime).toBeGreaterThanOrEqual(stepUp.pending.freshAfter!);
  });

  it('refuses a step-up answered with an authentication older than the step-up (beyond clock tolerance)', async () => {
    const { sandbox, signIn } = await appAndProvider();
    const started = await signIn.begin(CALLBACK);
    const back = await signInAtProvider(new Browser(), sandbox, started.url, 'james@demo.example', CALLBACK);
    // As if the provider had answered a step-up begun a minute after this sign-in with this one.
    const pending = { ...started.pending, freshAfter: Date.now() + 60_000 - 30_000 };
    await expect(signIn.finish(back, pending)).rejects.toMatchObject({ code: 'AUTHENTICATION_NOT_FRESH' });
  });

  it('refuses a callback whose state was not its own, and says when the provider cannot be reached', async () => {
    const { sandbox, signIn } = await appAndProvider();
    const started = await signIn.begin(CALLBACK);
    const back = await signInAtProvider(new Browser(), sandbox, started.url, 'james@demo.example', CALLBACK);
    back.searchParams.set('state', 'forged');
    await expect(signIn.finish(back, started.pending)).rejects.toMatchObject({ code: 'SIGN_IN_REFUSED' });

    const unreachable = createAppSignIn({
      issuer: 'http://127.0.0.1:1',
      clientId: 'x',
      clientSecret: 'y',
      allowInsecureIssuer: true,
    });
    const refused = await unreachable.begin(CALLBACK).catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(AppSignInError);
    expect(refused).toMatchObject({ code: 'IDENTITY_PROVIDER_UNAVAILABLE' });
  });
});
