import type { Sandbox } from '../sandbox-api.js';
import type { Browser } from './browser.js';

/**
 * On the sandbox's consent page that `authorizeUrl` opens, picks a demo user and allows (or
 * denies), as a person would; returns the platform's redirect back to the app.
 */
export async function approveConsent(
  browser: Browser,
  authorizeUrl: string,
  options: { userIndex?: number; decision?: 'allow' | 'deny' } = {},
): Promise<URL> {
  const authorize = new URL(authorizeUrl);
  const page = await browser.request(authorize.href);
  const users = [...page.text.matchAll(/name="user" value="([^"]+)"/g)].map((match) => match[1]!);
  const form = new URLSearchParams(authorize.searchParams);
  form.set('user', users[(options.userIndex ?? 0) % users.length]!);
  form.set('decision', options.decision ?? 'allow');
  const answer = await browser.request(`${authorize.origin}/oauth/authorize`, { method: 'POST', body: form });
  if (answer.status !== 302 || !answer.location) throw new Error(`consent answered ${answer.status}`);
  return new URL(answer.location);
}

/**
 * At the sandbox identity provider, signs a demo user in as a person would (login page, then the
 * authenticator or SMS code when the user has one) and returns the provider's redirect back to
 * the app (`redirectPrefix`), without following it.
 */
export async function signInAtProvider(
  browser: Browser,
  sandbox: Sandbox,
  authorizationUrl: string,
  email: string,
  redirectPrefix: string,
): Promise<URL> {
  const user = sandbox.identity.users.byEmail(email)!;
  const toLogin = await browser.request(authorizationUrl);
  if (toLogin.status !== 303 || !toLogin.location) throw new Error(`authorize answered ${toLogin.status}`);
  const login = toLogin.location;
  let hop = await browser.request(`${login}/login`, {
    method: 'POST',
    body: new URLSearchParams({ email, secret: user.demoSecret! }),
  });
  if (hop.location?.endsWith('/verify')) {
    // The provider's clock, which a test may have moved.
    const code = user.totpSecret
      ? sandbox.identity.currentTotp(email)!
      : sandbox.identity.outbox.latestCodeFor(user.phone!)!;
    hop = await browser.request(`${login}/verify`, { method: 'POST', body: new URLSearchParams({ code }) });
  }
  for (;;) {
    while (hop.location && !hop.location.startsWith(redirectPrefix)) hop = await browser.request(hop.location);
    // A native app's sign-in asks the user to allow the app (RFC 8252 §8.6).
    const consent = hop.location ? undefined : /action="(\/interaction\/[^"]+\/consent)"/.exec(hop.text)?.[1];
    if (!consent) break;
    hop = await browser.request(new URL(consent, authorizationUrl).href, {
      method: 'POST',
      body: new URLSearchParams({ decision: 'allow' }),
    });
  }
  if (!hop.location)
    throw new Error(`the provider did not return to the app (${hop.status}): ${hop.text.slice(0, 200)}`);
  return new URL(hop.location);
}
