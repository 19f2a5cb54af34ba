import type { Clock } from '@open-finance-gateway/common/clock';
import type { OAuthStateStore } from './oauth-state-store.js';

/** How long a connection URL handed to an app stays usable: enough to open the browser, not to be kept. */
export const CONNECTION_URL_TTL_MS = 5 * 60_000;

/**
 * A connection URL's grant has no browser to bind to when it is issued (the app opens it in the
 * system browser later): it is bound to the user instead, and the URL itself is the single-use
 * capability. The OAuth state store's binding check is given this fixed value for it.
 */
const NO_BROWSER_YET = 'bank-connection-url';

/** The app's state value: opaque to the gateway, visible ASCII, bounded. */
const APP_STATE_FORM = /^[\x21-\x7e]{1,512}$/;

/** Where the browser goes at the end, with only this: never a token. */
export type ConnectionOutcome = 'connected' | 'refused' | 'error';

/** What a phone's bank connection carries from the URL to the platform's callback. */
export interface PhoneReturn {
  returnUri: string;
  appState: string;
}

export type StartRefusal = 'RETURN_URI_NOT_ALLOWED' | 'BAD_STATE';

export interface PhoneBankConnectionOptions {
  states: OAuthStateStore;
  /** APP_RETURN_URIS: exact URIs (claimed https links, custom schemes), loopback any port (RFC 8252 §7.3). */
  returnUris: readonly string[];
  publicUrl: () => string;
  clock: Clock;
}

const isLoopback = (url: URL) => url.protocol === 'http:' && ['127.0.0.1', '[::1]'].includes(url.hostname);

/** Whether `candidate` is on the list: exactly, or a loopback URI that differs only by its port. */
export function returnUriAllowed(candidate: string, allowed: readonly string[]): boolean {
  let url: URL;
  try {
    url = new URL(candidate);
  } catch {
    return false;
  }
  if (url.hash !== '' || url.username !== '' || url.password !== '') return false;
  return allowed.some((entry) => {
    const listed = new URL(entry);
    if (isLoopback(url) && isLoopback(listed)) {
      return url.hostname === listed.hostname && url.pathname === listed.pathname && url.search === listed.search;
    }
    return url.href === listed.href;
  });
}

/** The app's return URI with the outcome and the app's state added. */
export function appReturnUrl({ returnUri, appState }: PhoneReturn, outcome: ConnectionOutcome): string {
  const url = new URL(returnUri);
  url.searchParams.set('outcome', outcome);
  url.searchParams.set('state', appState);
  return url.href;
}

/**
 * The bank connection from a phone: the app asks (signed in, through GraphQL) for a URL it opens
 * in the system browser. The URL carries a grant that is single use, expires in five minutes and
 * names the user who asked, so the browser needs no cookie of the gateway's. Opening it shows the
 * consumer information page, then the platform's consent; the callback then sends the browser to
 * the app's registered return URI with the outcome and the app's `state`, never a token. Grants
 * live in the OAuth state store (memory or Redis; taken once, on any instance).
 */
export function createPhoneBankConnection(options: PhoneBankConnectionOptions) {
  return {
    /** A connection URL for the user, or why not (nothing is stored then). */
    async start(
      userId: string,
      returnUri: string,
      appState: string,
    ): Promise<{ url: string; expiresAt: number } | { refused: StartRefusal }> {
      if (!returnUriAllowed(returnUri, options.returnUris)) return { refused: 'RETURN_URI_NOT_ALLOWED' };
      if (!APP_STATE_FORM.test(appState)) return { refused: 'BAD_STATE' };
      const expiresAt = options.clock() + CONNECTION_URL_TTL_MS;
      const grant = await options.states.issue(NO_BROWSER_YET, '/', {
        flow: 'bank-connection-url',
        userId,
        returnUri,
        appState,
        expiresAt: String(expiresAt),
      });
      return { url: `${options.publicUrl()}/auth/phone/connect?${new URLSearchParams({ grant })}`, expiresAt };
    },

    /** Takes the grant (once, whatever the outcome): whose it is and where to return, or why not. */
    async redeem(
      grant: string | null,
    ): Promise<
      { userId: string; phone: PhoneReturn } | { refused: 'CONNECTION_URL_INVALID' | 'CONNECTION_URL_EXPIRED' }
    > {
      const check = await options.states.consume(grant, NO_BROWSER_YET);
      if (!check.ok || check.data?.flow !== 'bank-connection-url') return { refused: 'CONNECTION_URL_INVALID' };
      const { userId, returnUri, appState, expiresAt } = check.data;
      if (!userId || !returnUri || !appState || !(options.clock() < Number(expiresAt)))
        return { refused: 'CONNECTION_URL_EXPIRED' };
      return { userId, phone: { returnUri, appState } };
    },
  };
}

export type PhoneBankConnection = ReturnType<typeof createPhoneBankConnection>;

/** The phone's return, when the platform's callback state carries one. */
export function phoneReturnOf(data: Record<string, string> | undefined): PhoneReturn | undefined {
  return data?.returnUri && data.appState !== undefined
    ? { returnUri: data.returnUri, appState: data.appState }
    : undefined;
}
