import { Browser, type BrowserResponse } from './browser.js';
import { approveConsent, MFA_DEMO_USERS, signInToApp, startConnection, type TestGateway } from './gateway.js';

/**
 * The sign-in flow in the steps a test stops between: the app user's sign-in alone, then the bank
 * connection (the consumer information page's button and the platform's consent). `signIn` in
 * gateway.ts does both for a test that only needs a signed-in, connected user.
 */
type Site = Pick<TestGateway, 'url' | 'sandbox'>;

export interface ConsentOptions {
  /** Query of the consumer information page (e.g. `?returnTo=...`). */
  query?: string;
  /** The sandbox's demo bank customer picked on the consent page. */
  userIndex?: number;
  decision?: 'allow' | 'deny';
}

/**
 * A new browser whose app user (a demo user by index, or an e-mail) signs in with their second
 * factor and connects no bank. Returns the browser and the gateway's answer to the sign-in
 * callback (a 303 to the consumer information page for a user not yet connected).
 */
export async function signInOnly(
  gateway: Site,
  user: number | string = 0,
  query = '',
): Promise<{ browser: Browser; landed: BrowserResponse }> {
  const browser = new Browser();
  const email = typeof user === 'string' ? user : MFA_DEMO_USERS[user]!;
  const landed = await signInToApp(browser, gateway.sandbox, gateway.url, email, query);
  return { browser, landed };
}

/**
 * A signed-in browser consents at the platform: `/auth/consumer-info` (at `base`, the gateway's
 * origin), its button, then the sandbox's consent page. Returns where the platform sends the
 * browser back (the gateway's callback URL), not yet followed.
 */
export async function consentToBank(browser: Browser, base: string, options: ConsentOptions = {}): Promise<URL> {
  const connect = await startConnection(browser, base, options.query);
  return approveConsent(browser, connect.location!, { userIndex: options.userIndex, decision: options.decision });
}

/** `consentToBank`, then the platform's redirect followed: the gateway's answer to its callback. */
export async function connectBank(
  browser: Browser,
  base: string,
  options: ConsentOptions = {},
): Promise<BrowserResponse> {
  return browser.request((await consentToBank(browser, base, options)).href);
}
