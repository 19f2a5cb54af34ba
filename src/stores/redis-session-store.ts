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
 * Writes a session unless it was ended (KEYS[2], its tombstone): a write sent before a sign-out or
 * a revocation but applied after it (a touch racing the deletion, or a write that timed out and
 * Redis ran late) must not bring the session back. Session ids are never reused, so a tombstone
 * blocks nothing else. KEYS: session, tombstone, user index; one slot (the user's tag).
 */
const WRITE_SCRIPT = `
if redis.call('EXISTS', KEYS[2]) == 1 then return 0 end
redis.call('SET', KEYS[1], ARGV[1], 'PXAT', ARGV[2])
redis.call('SADD', KEYS[3], ARGV[3])
redis.call('PEXPIREAT', KEYS[3], ARGV[4], 'GT')
redis.call('PEXPIREAT', KEYS[3], ARGV[4], 'NX')
return 1
`;

/**
 * Deletes sessions and leaves a tombstone for each that existed, kept as long as the session's key
 * would have lived. KEYS: pairs of session and tombstone, all of one user. Returns the values.
 */
const END_SCRIPT = `
local values = {}
for i = 1, #KEYS, 2 do
  local ttl = redis.call('PTTL', KEYS[i])
  local value = redis.call('GETDEL', KEYS[i])
  if value then
    if ttl > 0 then redis.call('SET', KEYS[i + 1], '1', 'PX', ttl) end
    values[#values + 1] = value
  end
end
return values
`;

/**
 * Sessions on Redis. A session is one key; reads treat it as gone from the earlier of its absolute
 * and idle deadlines, and a sorted set of deadlines lets a sweep on any instance find lapsed
 * sessions, delete them and hand them to `onExpired` (which revokes their platform token), each
 * exactly once (ZREM decides which instance). Redis itself drops the key a little later. The
 * user's index set lists sessions for revoke-all and deletion; a user's keys share a hash tag, so
 * every multi-key command and transaction stays in one Cluster slot (the deadline set, shared by
 * all users, is written on its own). The token is stored only encrypted, bound to the session key
 * and user id. A session's keys are written in one script: a session whose token could not be
 * stored does not exist, and an ended session leaves a tombstone that no late write gets past.
 */
export function createRedisSessionStore(options: RedisSessionStoreOptions): SessionStore {
  const { redis, keyPrefix, cipher } = options;
  const userKeys = (tag: string) => `${keyPrefix}{u:${tag}}`;
  const sessionKey = (key: string) => {
    const tag = tagOfSessionKey(key);
    return tag ? `${userKeys(tag)}:s:${key.slice(tag.length + 1)}` : undefined;
  };
  const indexKey = (userId: string) => `${userKeys(userTag(userId))}:sessions`;
  const tombstoneOf = (redisKey: string) => `${redisKey}:ended`;
  redis.defineCommand('ofgWriteSession', { numberOfKeys: 3, lua: WRITE_SCRIPT });
  redis.defineCommand('ofgEndSessions', { lua: END_SCRIPT });
  const commands = redis as unknown as {
    ofgWriteSession(...args: Array<string | number>): Promise<number>;
    ofgEndSessions(count: number, ...keys: string[]): Promise<string[]>;
  };
  /** Ends sessions of one user (their keys share a slot), tombstoning each; returns what they held. */
  const end = (redisKeys: string[]) =>
    storeCall(() =>
      commands.ofgEndSessions(redisKeys.length * 2, ...redisKeys.flatMap((key) => [key, tombstoneOf(key)])),
    );
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
      // The index lives as long as the longest session it could list.
      await storeCall(() =>
        commands.ofgWriteSession(
          redisKey,
          tombstoneOf(redisKey),
          index,
          JSON.stringify(stored),
          deadline + SWEEP_GRACE_MS,
          key,
          record.expiresAt + SWEEP_GRACE_MS,
        ),
      );
    },
    async delete(key) {
      const redisKey = sessionKey(key);
      if (!redisKey) return;
      const [raw] = await end([redisKey]);
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
      if (keys.length > 0) await end(keys.map((key) => sessionKey(key)!));
      await storeCall(() => redis.del(indexKey(userId)));
      if (keys.length > 0) await storeCall(() => redis.zrem(deadlinesKey, ...keys));
      return keys;
    },
    sweep,
    async close() {
      clearInterval(sweeper);
    },
  };
}
