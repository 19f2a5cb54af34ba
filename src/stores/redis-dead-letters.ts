import type { DeadLetter, DeadLetterStore } from '../webhooks/dead-letters.js';
import { execAll, storeCall, type RedisClient } from './redis-client.js';

/** Dead letters on Redis: one capped list, newest first, readable from any instance. */
export function createRedisDeadLetters(options: {
  redis: RedisClient;
  keyPrefix: string;
  maxEntries?: number;
}): DeadLetterStore {
  const key = `${options.keyPrefix}dead-letters`;
  const max = options.maxEntries ?? 200;
  return {
    async add(letter) {
      await storeCall(() =>
        execAll(
          options.redis
            .multi()
            .lpush(key, JSON.stringify(letter))
            .ltrim(key, 0, max - 1),
        ),
      );
    },
    async list() {
      return (await storeCall(() => options.redis.lrange(key, 0, max - 1))).map((raw) => JSON.parse(raw) as DeadLetter);
    },
  };
}
