import { randomToken, sha256Hex } from '@open-finance-gateway/common/ids';
import { storeCall, type RedisClient } from '../redis/redis-client.js';
import { checkPending, OAUTH_STATE_TTL_MS, type OAuthStateStore, type PendingSignIn } from './oauth-state-store.js';

/** OAuth `state` on Redis: stored by digest with a 10-minute expiry, taken with GETDEL (single use everywhere). */
export function createRedisOAuthStateStore(options: { redis: RedisClient; keyPrefix: string }): OAuthStateStore {
  const key = (state: string) => `${options.keyPrefix}oauth:${sha256Hex(state)}`;
  return {
    async issue(browserBinding, returnTo, data) {
      const state = randomToken();
      const entry: PendingSignIn = { bindingDigest: sha256Hex(browserBinding), returnTo, ...(data ? { data } : {}) };
      await storeCall(() => options.redis.set(key(state), JSON.stringify(entry), 'PX', OAUTH_STATE_TTL_MS));
      return state;
    },
    async consume(state, browserBinding) {
      if (!state) return { ok: false, reason: 'missing' };
      const raw = await storeCall(() => options.redis.getdel(key(state)));
      return checkPending(raw ? (JSON.parse(raw) as PendingSignIn) : undefined, browserBinding);
    },
  };
}
