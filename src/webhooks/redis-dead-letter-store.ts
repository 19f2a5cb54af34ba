import { DEDUPLICATION_WINDOW_MS } from '../event-log/delivery-marks.js';
import { storeCall, type RedisClient } from '../redis/redis-client.js';
import { deadLettersKey, deliveryMarkRedisKey, DONE_MARK } from '../redis/redis-keys.js';
import type { ReplicaWait } from '../redis/redis-replica-wait.js';
import type { DeadLetter, DeadLetterStore } from './dead-letter-store.js';

/**
 * Adds a letter and marks its body done (KEYS[2], in the list's hash slot), atomically; a body
 * already done adds nothing, so a write that timed out and ran after a retry keeps no copy.
 */
const ADD_SCRIPT = `
if redis.call('GET', KEYS[2]) == '${DONE_MARK}' then return 0 end
redis.call('LPUSH', KEYS[1], ARGV[1])
redis.call('LTRIM', KEYS[1], 0, tonumber(ARGV[2]) - 1)
redis.call('SET', KEYS[2], '${DONE_MARK}', 'PX', ARGV[3])
return 1
`;

type AddCommand = (key: string, mark: string, letter: string, max: number, windowMs: number) => Promise<number>;

/** Dead letters on Redis: one capped list, newest first, readable from any instance. */
export function createRedisDeadLetterStore(options: {
  redis: RedisClient;
  keyPrefix: string;
  maxEntries?: number;
  /** Resolves once enough replicas hold a new letter (REDIS_WAIT_REPLICAS). @default no wait */
  waitForReplicas?: ReplicaWait;
}): DeadLetterStore {
  const key = deadLettersKey(options.keyPrefix);
  const max = options.maxEntries ?? 200;
  options.redis.defineCommand('ofgAddDeadLetter', { numberOfKeys: 2, lua: ADD_SCRIPT });
  const add = (options.redis as unknown as { ofgAddDeadLetter: AddCommand }).ofgAddDeadLetter.bind(options.redis);
  return {
    async add(letter) {
      const mark = deliveryMarkRedisKey(options.keyPrefix, 'dead-letters', letter.bodyHash);
      const added = (await storeCall(() => add(key, mark, JSON.stringify(letter), max, DEDUPLICATION_WINDOW_MS))) === 1;
      if (added) await options.waitForReplicas?.(key);
      return added;
    },
    async list() {
      return (await storeCall(() => options.redis.lrange(key, 0, max - 1))).map((raw) => JSON.parse(raw) as DeadLetter);
    },
  };
}
