import { DEDUPLICATION_WINDOW_MS, type DeliveryLedger } from '../webhooks/delivery-ledger.js';
import { storeCall, type RedisClient } from './redis-client.js';

/** The delivery ledger on Redis: `SET NX PX` claims a body hash for four days, across instances. */
export function createRedisDeliveryLedger(options: { redis: RedisClient; keyPrefix: string }): DeliveryLedger {
  const key = (hash: string) => `${options.keyPrefix}delivery:${hash}`;
  return {
    async claim(bodyHash) {
      return (
        (await storeCall(() => options.redis.set(key(bodyHash), '1', 'PX', DEDUPLICATION_WINDOW_MS, 'NX'))) === 'OK'
      );
    },
    async release(bodyHash) {
      await storeCall(() => options.redis.del(key(bodyHash)));
    },
  };
}
