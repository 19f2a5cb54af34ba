import { LRUCache } from 'lru-cache';
import { randomToken, sha256Hex } from '@open-finance-gateway/common/ids';
import { checkPending, OAUTH_STATE_TTL_MS, type OAuthStateStore, type PendingSignIn } from './oauth-state-store.js';

/** In process memory, bounded, so a flood of /auth/login calls cannot grow memory without limit. */
export function createMemoryOAuthStateStore(options: { ttlMs?: number; maxPending: number }): OAuthStateStore {
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
