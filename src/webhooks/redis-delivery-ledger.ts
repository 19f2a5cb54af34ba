import { newClaimToken } from '../event-log/delivery-marks.js';
import { storeCall, type RedisClient } from '../redis/redis-client.js';
import { deliveryMarkRedisKey, DONE_MARK } from '../redis/redis-keys.js';
import type { DeliveryLedger } from './delivery-ledger.js';

/**
 * Reads the mark: done stays done (unless ARGV[3] is 1: claimed again); a live claim is reported
 * with its remaining lease; else claims.
 */
const CLAIM_SCRIPT = `
local mark = redis.call('GET', KEYS[1])
if mark == '${DONE_MARK}' and ARGV[3] ~= '1' then return {'done', 0} end
if mark and mark ~= '${DONE_MARK}' then return {'in-progress', redis.call('PTTL', KEYS[1])} end
redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[2])
return {'claimed', 0}
`;

/** Deletes a claim only while it is still this token's: never a done mark, never another's claim. */
const RELEASE_SCRIPT = `
if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) end
return 0
`;

type ClaimCommand = (key: string, value: string, leaseMs: number, reclaimDone: '0' | '1') => Promise<[string, number]>;
type ReleaseCommand = (key: string, value: string) => Promise<number>;

/** The two-phase delivery ledger on Redis (see DeliveryLedger), across instances. */
export function createRedisDeliveryLedger(options: {
  redis: RedisClient;
  keyPrefix: string;
  leaseMs: number;
}): DeliveryLedger {
  const { redis, keyPrefix } = options;
  redis.defineCommand('ofgClaimDelivery', { numberOfKeys: 1, lua: CLAIM_SCRIPT });
  redis.defineCommand('ofgReleaseDelivery', { numberOfKeys: 1, lua: RELEASE_SCRIPT });
  const commands = redis as unknown as { ofgClaimDelivery: ClaimCommand; ofgReleaseDelivery: ReleaseCommand };
  const release = (key: string, token: string) => storeCall(() => commands.ofgReleaseDelivery(key, `p:${token}`));
  return {
    async claim(scope, bodyHash, reclaimDone = false) {
      const key = deliveryMarkRedisKey(keyPrefix, scope, bodyHash);
      const token = newClaimToken();
      try {
        const [state, ttl] = await storeCall(() =>
          commands.ofgClaimDelivery(key, `p:${token}`, options.leaseMs, reclaimDone ? '1' : '0'),
        );
        if (state === 'claimed') return { state, token };
        if (state === 'in-progress') return { state, retryAfterMs: Math.max(ttl, 0) };
        return { state: 'done' };
      } catch (error) {
        // The claim may still run (a stalled server applies it when it resumes): the release is
        // sent after it on the same connection, so it undoes it then. The lease covers the rest.
        void release(key, token).catch(() => undefined);
        throw error;
      }
    },
    async release(scope, bodyHash, token) {
      await release(deliveryMarkRedisKey(keyPrefix, scope, bodyHash), token);
    },
  };
}
