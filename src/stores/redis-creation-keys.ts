import type { CreationKeyStore } from '../payments/creation-keys.js';
import { storeCall, type RedisClient } from './redis-client.js';

/** Creation keys on Redis: one `SET NX GET PX` claims a key for the window, or returns the one claimed. */
export function createRedisCreationKeys(options: { redis: RedisClient; keyPrefix: string }): CreationKeyStore {
  const key = (fingerprint: string) => `${options.keyPrefix}creation:${fingerprint}`;
  return {
    async claim(fingerprint, proposed, windowMs) {
      const earlier = await storeCall(
        () =>
          options.redis.call('SET', key(fingerprint), proposed, 'PX', String(windowMs), 'NX', 'GET') as Promise<
            string | null
          >,
      );
      return earlier ?? proposed;
    },
  };
}
