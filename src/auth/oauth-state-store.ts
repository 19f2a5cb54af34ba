import { LRUCache } from 'lru-cache';
import { randomToken, sha256Hex } from '@open-finance-gateway/common/ids';

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

/** In process memory, bounded, so a flood of /auth/login calls cannot grow memory without limit. */
export function createMemoryOAuthStates(options: { ttlMs?: number; maxPending: number }): OAuthStateStore {
  const pending = new LRUCache<string, PendingSignIn>({
    max: options.maxPending,
    ttl: options.ttlMs ?? OAUTH_STATE_TTL_MS,
    ttlAutopurge: false,
  });
  return {
    async issue(browserBinding, returnTo, data) {
      const state = randomToken();
      pending.set(sha256Hex(state), { bindingDigest: sha256Hex(browserBinding), returnTo, ...(data ? { data } : {}) });
      return state;
    },
    async consume(state, browserBinding) {
      if (!state) return { ok: false, reason: 'missing' };
      const key = sha256Hex(state);
      const entry = pending.get(key);
      pending.delete(key);
      return checkPending(entry, browserBinding);
    },
  };
}
