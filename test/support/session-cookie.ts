import { gatewayCookieNames } from '../../src/auth/cookie-names.js';

/** What the helpers need of a test browser: its cookie jar, by host. */
interface CookieJar {
  cookie(host: string, name: string): string | undefined;
}

/** The session cookie's name at a gateway: `gw_session_<port>` on plain http, `__Host-gw_session` on https. */
export const sessionCookieName = (gatewayUrl: string): string => gatewayCookieNames(gatewayUrl).session;

/** The browser's session cookie at that gateway, if any. */
export const sessionCookieValue = (browser: CookieJar, gatewayUrl: string): string | undefined =>
  browser.cookie(new URL(gatewayUrl).host, sessionCookieName(gatewayUrl));

/** The same as a `Cookie` header value, for a client that sends it itself (`gw_session_4711=…`). */
export const sessionCookie = (browser: CookieJar, gatewayUrl: string): string =>
  `${sessionCookieName(gatewayUrl)}=${sessionCookieValue(browser, gatewayUrl)}`;
