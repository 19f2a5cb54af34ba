import type { Redis } from 'ioredis';
import { tagOfSessionKey, userTag, type SessionRecord, type SessionStore } from '../auth/session-store.js';
import type { TokenCipher } from '../auth/token-cipher.js';
import { execAll, storeCall } from './redis-client.js';

export interface RedisSessionStoreOptions {
  redis: Redis;
  keyPrefix: string;
  cipher: TokenCipher;
  idleTimeoutMs: number;
}

interface StoredSession {
  userId: string;
  /** The platform token, encrypted and bound to this record (see token-cipher). */
  token: string;
  createdAt: number;
  expiresAt: number;
  lastSeenAt: number;
}

/**
 * Sessions on Redis. Each is one key whose expiry is the earlier of its absolute and idle
 * deadlines, so Redis forgets a lapsed session (and its token) by itself; the user's index set
 * lists them for revoke-all and deletion. A user's keys share a hash tag. The token is stored only
 * encrypted, bound to the session key and user id. Writes are transactions: a session whose token
 * could not be stored does not exist.
 */
export function createRedisSessionStore(options: RedisSessionStoreOptions): SessionStore {
  const { redis, keyPrefix, cipher } = options;
  const userKeys = (tag: string) => `${keyPrefix}{u:${tag}}`;
  const sessionKey = (key: string) => {
    const tag = tagOfSessionKey(key);
    return tag ? `${userKeys(tag)}:s:${key.slice(tag.length + 1)}` : undefined;
  };
  const indexKey = (userId: string) => `${userKeys(userTag(userId))}:sessions`;
  const binding = (key: string, userId: string) => `session:${key}|user:${userId}`;

  function decode(key: string, raw: string | null): SessionRecord | undefined {
    if (raw === null) return undefined;
    const stored = JSON.parse(raw) as StoredSession;
    return { userId: stored.userId, accessToken: cipher.decrypt(stored.token, binding(key, stored.userId)), createdAt: stored.createdAt, expiresAt: stored.expiresAt, lastSeenAt: stored.lastSeenAt };
  }

  return {
    async get(key) {
      const redisKey = sessionKey(key);
      if (!redisKey) return undefined;
      return decode(key, await storeCall(() => redis.get(redisKey)));
    },
    async set(key, record) {
      const redisKey = sessionKey(key);
      if (!redisKey) throw new Error('session keys start with the user tag');
      const stored: StoredSession = { userId: record.userId, token: cipher.encrypt(record.accessToken, binding(key, record.userId)), createdAt: record.createdAt, expiresAt: record.expiresAt, lastSeenAt: record.lastSeenAt };
      const deadline = Math.min(record.expiresAt, record.lastSeenAt + options.idleTimeoutMs);
      await storeCall(() =>
        execAll(
          redis
          .multi()
          .set(redisKey, JSON.stringify(stored), 'PXAT', deadline)
          .sadd(indexKey(record.userId), key)
          // The index lives as long as the longest session it could list.
          .pexpireat(indexKey(record.userId), Math.max(record.expiresAt, deadline), 'GT')
          .pexpireat(indexKey(record.userId), Math.max(record.expiresAt, deadline), 'NX'),
        ),
      );
    },
    async delete(key) {
      const redisKey = sessionKey(key);
      if (!redisKey) return;
      const raw = await storeCall(() => redis.getdel(redisKey));
      if (raw) await storeCall(() => redis.srem(indexKey((JSON.parse(raw) as StoredSession).userId), key));
    },
    async listByUser(userId) {
      const keys = await storeCall(() => redis.smembers(indexKey(userId)));
      if (keys.length === 0) return [];
      const values = await storeCall(() => redis.mget(keys.map((key) => sessionKey(key)!)));
      const live: Array<{ sessionId: string; record: SessionRecord }> = [];
      const lapsed: string[] = [];
      keys.forEach((key, index) => {
        const record = decode(key, values[index] ?? null);
        if (record) live.push({ sessionId: key, record });
        else lapsed.push(key);
      });
      if (lapsed.length > 0) await storeCall(() => redis.srem(indexKey(userId), ...lapsed));
      return live;
    },
    async deleteByUser(userId) {
      const keys = await storeCall(() => redis.smembers(indexKey(userId)));
      await storeCall(() => execAll(redis.multi().del(...keys.map((key) => sessionKey(key)!), indexKey(userId))));
      return keys;
    },
    async close() {
      // The connection is shared and closed by its owner.
    },
  };
}
