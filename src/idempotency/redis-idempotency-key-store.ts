import { randomUUID } from 'node:crypto';
import { storeCall, type RedisClient } from '../redis/redis-client.js';
import type { IdempotencyKeyStore, StoredCreation } from './idempotency-key-store.js';

/** Turns an in-progress lease held by ARGV[1] into the done record of item ARGV[2], for ARGV[3] ms. */
const FINISH = `
local current = redis.call('GET', KEYS[1])
if not current then return 0 end
local record = cjson.decode(current)
if record.token ~= ARGV[1] or record.state ~= 'in-progress' then return 0 end
record.state = 'done'
record.itemId = ARGV[2]
redis.call('SET', KEYS[1], cjson.encode(record), 'PX', ARGV[3])
return 1`;

/** Deletes an in-progress lease held by ARGV[1]; a done record stays. */
const RELEASE = `
local current = redis.call('GET', KEYS[1])
if not current then return 0 end
local record = cjson.decode(current)
if record.token ~= ARGV[1] or record.state ~= 'in-progress' then return 0 end
return redis.call('DEL', KEYS[1])`;

/**
 * Creation keys on Redis: one `SET NX GET PX` claims a derived key for the window, or returns the
 * one claimed; another takes a key's in-progress lease, or returns its holder's record. Finishing
 * and releasing check the holder's token in one script, so a lease that lapsed and was taken by
 * someone else is never overwritten.
 */
export function createRedisIdempotencyKeyStore(options: {
  redis: RedisClient;
  keyPrefix: string;
}): IdempotencyKeyStore {
  const key = (fingerprint: string) => `${options.keyPrefix}creation:${fingerprint}`;
  const lease = (idempotencyKey: string) => `${options.keyPrefix}creation-lease:${idempotencyKey}`;
  const setNxGet = (name: string, value: string, ttlMs: number) =>
    storeCall(() => options.redis.call('SET', name, value, 'PX', String(ttlMs), 'NX', 'GET') as Promise<string | null>);
  return {
    async claim(fingerprint, proposed, windowMs) {
      return (await setNxGet(key(fingerprint), proposed, windowMs)) ?? proposed;
    },
    async begin(idempotencyKey, input, leaseMs) {
      const token = randomUUID();
      const mine: StoredCreation = { state: 'in-progress', input, token };
      const earlier = await setNxGet(lease(idempotencyKey), JSON.stringify(mine), leaseMs);
      if (earlier === null) return { held: true, token };
      const { token: _token, ...record } = JSON.parse(earlier) as StoredCreation;
      return { held: false, record };
    },
    async finish(idempotencyKey, token, itemId, windowMs) {
      await storeCall(() => options.redis.eval(FINISH, 1, lease(idempotencyKey), token, itemId, String(windowMs)));
    },
    async release(idempotencyKey, token) {
      await storeCall(() => options.redis.eval(RELEASE, 1, lease(idempotencyKey), token));
    },
  };
}
