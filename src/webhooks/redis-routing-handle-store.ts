import { randomToken } from '@open-finance-gateway/common/ids';
import { execAll, storeCall, type RedisClient } from '../redis/redis-client.js';
import { userKeys } from '../redis/redis-keys.js';
import type { ReplicaWait } from '../redis/redis-replica-wait.js';
import type { RoutingHandleStore } from './routing-handle-store.js';

/**
 * Routing handles on Redis: `rh:<handle>` → user id (looked up per webhook), and under the user's
 * hash tag the handle and the set of webhook types the platform cancelled. Created with `SET NX`,
 * so two instances signing the same user in at once agree on one handle. A handle is handed out
 * only once replicas hold both keys (REDIS_WAIT_REPLICAS): a failover that lost them would make
 * every later webhook of that user unroutable, answered and ignored.
 */
export function createRedisRoutingHandleStore(options: {
  redis: RedisClient;
  keyPrefix: string;
  waitForReplicas?: ReplicaWait;
}): RoutingHandleStore {
  const { redis, keyPrefix } = options;
  const replicated = async (handle: string, userId: string): Promise<string> => {
    // The two keys live in different slots (on a Cluster, on different nodes): wait on each.
    await options.waitForReplicas?.(userHandleKey(userId));
    await options.waitForReplicas?.(handleKey(handle));
    return handle;
  };
  const handleKey = (handle: string) => `${keyPrefix}rh:${handle}`;
  const userHandleKey = (userId: string) => `${userKeys(keyPrefix, userId)}:rh`;
  const cancelledKey = (userId: string) => `${userKeys(keyPrefix, userId)}:cancelled`;
  return {
    async handleFor(userId) {
      const candidate = `rh_${randomToken(24)}`;
      const created = await storeCall(() => redis.set(userHandleKey(userId), candidate, 'NX'));
      if (created === 'OK') {
        await storeCall(() => redis.set(handleKey(candidate), userId));
        return replicated(candidate, userId);
      }
      const existing = await storeCall(() => redis.get(userHandleKey(userId)));
      if (existing === null) return this.handleFor(userId); // deleted in between: try again
      // Repair a half-written pair (the process died between the two SETs).
      await storeCall(() => redis.set(handleKey(existing), userId, 'NX'));
      return replicated(existing, userId);
    },
    async userFor(handle) {
      return (await storeCall(() => redis.get(handleKey(handle)))) ?? undefined;
    },
    async markCancelled(userId, webhookType) {
      await storeCall(() => redis.sadd(cancelledKey(userId), webhookType));
    },
    async cancelledTypes(userId) {
      return storeCall(() => redis.smembers(cancelledKey(userId)));
    },
    async deleteUser(userId) {
      const handle = await storeCall(() => redis.get(userHandleKey(userId)));
      await storeCall(() => execAll(redis.multi().del(userHandleKey(userId), cancelledKey(userId))));
      if (handle) await storeCall(() => redis.del(handleKey(handle)));
    },
  };
}
