import type { Sandbox } from '@open-finance-gateway/sandbox';
import type { Browser } from './browser.js';

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
  while (hop.location && !hop.location.startsWith(redirectPrefix)) hop = await browser.request(hop.location);
  if (!hop.location)
    throw new Error(`the provider did not return to the app (${hop.status}): ${hop.text.slice(0, 200)}`);
  return new URL(hop.location);
}
