import { sha256Hex } from '@open-finance-gateway/common/ids';

export interface PendingSignIn {
  /** Digest of the browser-binding cookie that was set when this state was issued. */
  bindingDigest: string;
  returnTo: string;
  /** What the flow that issued the state needs back at its callback (which flow, PKCE verifier, nonce…). */
  data?: Record<string, string>;
}

export type StateCheck =
  | { ok: true; returnTo: string; data?: Record<string, string> }
  | { ok: false; reason: 'missing' | 'unknown' | 'foreign' };

/**
 * OAuth `state` values: unguessable, single use, short-lived, and bound to the browser that
 * started the sign-in (through a separate cookie), so a state lifted from one browser's URL is
 * useless in another. `consume` burns the state whatever the outcome (atomically, across
 * instances on Redis), so a sign-in started on one instance completes on any other.
 */
export interface OAuthStateStore {
  issue(browserBinding: string, returnTo: string, data?: Record<string, string>): Promise<string>;
  consume(state: string | null, browserBinding: string | undefined): Promise<StateCheck>;
}

export const OAUTH_STATE_TTL_MS = 10 * 60_000;

/** The check both implementations share, once the pending entry has been taken. */
export function checkPending(entry: PendingSignIn | undefined, browserBinding: string | undefined): StateCheck {
  if (!entry) return { ok: false, reason: 'unknown' };
  if (!browserBinding || sha256Hex(browserBinding) !== entry.bindingDigest) return { ok: false, reason: 'foreign' };
  return entry.data ? { ok: true, returnTo: entry.returnTo, data: entry.data } : { ok: true, returnTo: entry.returnTo };
}
