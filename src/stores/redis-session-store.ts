import { tagOfSessionKey, userTag, type SessionRecord, type SessionStore } from '../auth/session-store.js';
import type { TokenCipher } from '../auth/token-cipher.js';
import type { Clock } from '../lib/clock.js';
import type { Logger } from '../lib/logger.js';
import { execAll, storeCall, type RedisClient } from './redis-client.js';

export interface RedisSessionStoreOptions {
  redis: RedisClient;
  keyPrefix: string;
  cipher: TokenCipher;
  clock: Clock;
  idleTimeoutMs: number;
  logger: Logger;
  /** Told of each lapsed session once, by whichever instance sweeps it first. */
  onExpired?: (sessionKey: string, record: SessionRecord) => void;
  /** @default 30000 */
  sweepIntervalMs?: number;
}

interface StoredSession {
  userId: string;
  /** The platform token, encrypted and bound to this record (see token-cipher); absent until connected. */
  token?: string;
  authTime: number;
  amr: string[];
  createdAt: number;
  expiresAt: number;
  lastSeenAt: number;
}

/**
 * Kept past the deadline, so a sweep can still read the token it must revoke; reads treat the
 * session as gone from the deadline on.
 */
const SWEEP_GRACE_MS = 15 * 60_000;
const SWEEP_BATCH = 100;

/**
 * Sessions on Redis. A session is one key; reads treat it as gone from the earlier of its absolute
 * and idle deadlines, and a sorted set of deadlines lets a sweep on any instance find lapsed
 * sessions, delete them and hand them to `onExpired` (which revokes their platform token), each
 * exactly once (ZREM decides which instance). Redis itself drops the key a little later. The
 * user's index set lists sessions for revoke-all and deletion; a user's keys share a hash tag, so
 * every multi-key command and transaction stays in one Cluster slot (the deadline set, shared by
 * all users, is written on its own). The token is stored only encrypted, bound to the session key
 * and user id. A session's keys are written in one transaction: a session whose token could not
 * be stored does not exist.
 */
export function createRedisSessionStore(options: RedisSessionStoreOptions): SessionStore {
  const { redis, keyPrefix, cipher } = options;
  const userKeys = (tag: string) => `${keyPrefix}{u:${tag}}`;
  const sessionKey = (key: string) => {
    const tag = tagOfSessionKey(key);
    return tag ? `${userKeys(tag)}:s:${key.slice(tag.length + 1)}` : undefined;
  };
  const indexKey = (userId: string) => `${userKeys(userTag(userId))}:sessions`;
  const deadlinesKey = `${keyPrefix}session-deadlines`;
  const binding = (key: string, userId: string) => `session:${key}|user:${userId}`;
  const deadlineOf = (record: { expiresAt: number; lastSeenAt: number }) =>
    Math.min(record.expiresAt, record.lastSeenAt + options.idleTimeoutMs);

  function decode(key: string, raw: string | null): SessionRecord | undefined {
    if (raw === null) return undefined;
    const stored = JSON.parse(raw) as StoredSession;
    return {
      userId: stored.userId,
      ...(stored.token === undefined ? {} : { accessToken: cipher.decrypt(stored.token, binding(key, stored.userId)) }),
      authTime: stored.authTime,
      amr: stored.amr,
      createdAt: stored.createdAt,
      expiresAt: stored.expiresAt,
      lastSeenAt: stored.lastSeenAt,
    };
  }

  const live = (record: SessionRecord | undefined) =>
    record && options.clock() < deadlineOf(record) ? record : undefined;

  async function sweep(): Promise<void> {
    const due = await storeCall(() =>
      redis.zrangebyscore(deadlinesKey, '-inf', options.clock(), 'LIMIT', 0, SWEEP_BATCH),
    );
    for (const key of due) {
      // Only the instance whose ZREM removes the entry handles it.
      if ((await storeCall(() => redis.zrem(deadlinesKey, key))) !== 1) continue;
      const redisKey = sessionKey(key);
      const record = redisKey ? decode(key, await storeCall(() => redis.get(redisKey))) : undefined;
      if (!record || !redisKey) continue;
      if (live(record)) {
        // Used again meanwhile: put its new deadline back.
        await storeCall(() => redis.zadd(deadlinesKey, deadlineOf(record), key));
        continue;
      }
      await storeCall(() => execAll(redis.multi().del(redisKey).srem(indexKey(record.userId), key)));
      options.onExpired?.(key, record);
    }
  }

  const sweeper = setInterval(() => {
    sweep().catch((error: unknown) =>
      options.logger.warn({ err: { message: (error as Error).message } }, 'session sweep failed; will retry'),
    );
  }, options.sweepIntervalMs ?? 30_000);
  sweeper.unref();

  return {
    async get(key) {
      const redisKey = sessionKey(key);
      if (!redisKey) return undefined;
      return live(decode(key, await storeCall(() => redis.get(redisKey))));
    },
    async set(key, record) {
      const redisKey = sessionKey(key);
      if (!redisKey) throw new Error('session keys start with the user tag');
      const stored: StoredSession = {
        userId: record.userId,
        ...(record.accessToken === undefined
          ? {}
          : { token: cipher.encrypt(record.accessToken, binding(key, record.userId)) }),
        authTime: record.authTime,
        amr: record.amr,
        createdAt: record.createdAt,
        expiresAt: record.expiresAt,
        lastSeenAt: record.lastSeenAt,
      };
      const deadline = deadlineOf(record);
      const index = indexKey(record.userId);
      // The deadline first: it lives in another slot (no transaction spans both in a Cluster), and
      // an entry whose session was never written is skipped by the sweep, while a session without
      // one would never be swept (and its token never revoked).
      await storeCall(() => redis.zadd(deadlinesKey, deadline, key));
      await storeCall(() =>
        execAll(
          redis
            .multi()
            .set(redisKey, JSON.stringify(stored), 'PXAT', deadline + SWEEP_GRACE_MS)
            .sadd(index, key)
            // The index lives as long as the longest session it could list.
            .pexpireat(index, record.expiresAt + SWEEP_GRACE_MS, 'GT')
            .pexpireat(index, record.expiresAt + SWEEP_GRACE_MS, 'NX'),
        ),
      );
    },
    async delete(key) {
      const redisKey = sessionKey(key);
      if (!redisKey) return;
      const raw = await storeCall(() => redis.getdel(redisKey));
      await storeCall(() => redis.zrem(deadlinesKey, key));
      if (raw) await storeCall(() => redis.srem(indexKey((JSON.parse(raw) as StoredSession).userId), key));
    },
    async listByUser(userId) {
      const keys = await storeCall(() => redis.smembers(indexKey(userId)));
      if (keys.length === 0) return [];
      const values = await storeCall(() => redis.mget(keys.map((key) => sessionKey(key)!)));
      const found: Array<{ sessionId: string; record: SessionRecord }> = [];
      const gone: string[] = [];
      keys.forEach((key, index) => {
        const record = decode(key, values[index] ?? null);
        if (live(record)) found.push({ sessionId: key, record: record! });
        else if (!record) gone.push(key);
      });
      if (gone.length > 0) await storeCall(() => redis.srem(indexKey(userId), ...gone));
      return found;
    },
    async deleteByUser(userId) {
      const keys = await storeCall(() => redis.smembers(indexKey(userId)));
      const multi = redis.multi().del(...keys.map((key) => sessionKey(key)!), indexKey(userId));
      await storeCall(() => execAll(multi));
      if (keys.length > 0) await storeCall(() => redis.zrem(deadlinesKey, ...keys));
      return keys;
    },
    sweep,
    async close() {
      clearInterval(sweeper);
    },
  };
}
