import type { Clock } from '@open-finance-gateway/common/clock';
import type { Logger } from '@open-finance-gateway/common/logger';
import { execAll, storeCall, type RedisClient } from '../redis/redis-client.js';
import { sessionRedisKey, userKeys } from '../redis/redis-keys.js';
import { END_SCRIPT, WRITE_SCRIPT } from './redis-session-scripts.js';
import type { SessionRecord, SessionStore } from './session-store.js';
import { sealedTokenFields, sealedTokenOf, type StoredPlatformToken } from './stored-platform-token.js';
import type { TokenCipher } from './token-cipher.js';

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

/** The platform token (see stored-platform-token), encrypted and bound to this record; absent until connected. */
interface StoredSession extends StoredPlatformToken {
  userId: string;
  authTime: number;
  amr: string[];
  createdAt: number;
  expiresAt: number;
  lastSeenAt: number;
  client?: { id: string; device: string };
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
 * and user id. A session's keys are written in one script: a session whose token could not be
 * stored does not exist, and an ended session leaves a tombstone that no late write gets past.
 */
export function createRedisSessionStore(options: RedisSessionStoreOptions): SessionStore {
  return new RedisSessionStore(options);
}

interface SessionCommands {
  ofgWriteSession(...args: Array<string | number>): Promise<number>;
  ofgEndSessions(count: number, ...keys: string[]): Promise<string[]>;
}

class RedisSessionStore implements SessionStore {
  private readonly redis: RedisClient;
  private readonly commands: SessionCommands;
  private readonly deadlinesKey: string;
  private readonly sweeper: NodeJS.Timeout;

  constructor(private readonly options: RedisSessionStoreOptions) {
    this.redis = options.redis;
    this.deadlinesKey = `${options.keyPrefix}session-deadlines`;
    this.redis.defineCommand('ofgWriteSession', { numberOfKeys: 3, lua: WRITE_SCRIPT });
    this.redis.defineCommand('ofgEndSessions', { lua: END_SCRIPT });
    this.commands = this.redis as unknown as SessionCommands;
    this.sweeper = setInterval(() => {
      this.sweep().catch((error: unknown) =>
        options.logger.warn({ err: { message: (error as Error).message } }, 'session sweep failed; will retry'),
      );
    }, options.sweepIntervalMs ?? 30_000);
    this.sweeper.unref();
  }

  async get(key: string): Promise<SessionRecord | undefined> {
    const redisKey = this.redisKeyOf(key);
    if (!redisKey) return undefined;
    return this.live(this.decode(key, await storeCall(() => this.redis.get(redisKey))));
  }

  async set(key: string, record: SessionRecord): Promise<void> {
    const redisKey = this.redisKeyOf(key);
    if (!redisKey) throw new Error('session keys start with the user tag');
    const stored = JSON.stringify(this.encode(key, record));
    const deadline = this.deadlineOf(record);
    // The deadline first: it lives in another slot (no transaction spans both in a Cluster), and
    // an entry whose session was never written is skipped by the sweep, while a session without
    // one would never be swept (and its token never revoked).
    await storeCall(() => this.redis.zadd(this.deadlinesKey, deadline, key));
    // The index lives as long as the longest session it could list.
    await storeCall(() =>
      this.commands.ofgWriteSession(
        redisKey,
        tombstoneOf(redisKey),
        this.indexKey(record.userId),
        stored,
        deadline + SWEEP_GRACE_MS,
        key,
        record.expiresAt + SWEEP_GRACE_MS,
      ),
    );
  }

  async delete(key: string): Promise<void> {
    const redisKey = this.redisKeyOf(key);
    if (!redisKey) return;
    const [raw] = await this.end([redisKey]);
    await storeCall(() => this.redis.zrem(this.deadlinesKey, key));
    if (raw) await storeCall(() => this.redis.srem(this.indexKey((JSON.parse(raw) as StoredSession).userId), key));
  }

  async listByUser(userId: string): Promise<Array<{ sessionKey: string; record: SessionRecord }>> {
    const keys = await storeCall(() => this.redis.smembers(this.indexKey(userId)));
    if (keys.length === 0) return [];
    const values = await storeCall(() => this.redis.mget(keys.map((key) => this.redisKeyOf(key)!)));
    const found: Array<{ sessionKey: string; record: SessionRecord }> = [];
    const gone: string[] = [];
    keys.forEach((key, index) => {
      const record = this.decode(key, values[index] ?? null);
      if (this.live(record)) found.push({ sessionKey: key, record: record! });
      else if (!record) gone.push(key);
    });
    if (gone.length > 0) await storeCall(() => this.redis.srem(this.indexKey(userId), ...gone));
    return found;
  }

  async deleteByUser(userId: string): Promise<string[]> {
    const keys = await storeCall(() => this.redis.smembers(this.indexKey(userId)));
    if (keys.length > 0) await this.end(keys.map((key) => this.redisKeyOf(key)!));
    await storeCall(() => this.redis.del(this.indexKey(userId)));
    if (keys.length > 0) await storeCall(() => this.redis.zrem(this.deadlinesKey, ...keys));
    return keys;
  }

  async sweep(): Promise<void> {
    const { redis, deadlinesKey } = this;
    const due = await storeCall(() =>
      redis.zrangebyscore(deadlinesKey, '-inf', this.options.clock(), 'LIMIT', 0, SWEEP_BATCH),
    );
    for (const key of due) {
      // Only the instance whose ZREM removes the entry handles it.
      if ((await storeCall(() => redis.zrem(deadlinesKey, key))) !== 1) continue;
      const redisKey = this.redisKeyOf(key);
      const record = redisKey ? this.decode(key, await storeCall(() => redis.get(redisKey))) : undefined;
      if (!record || !redisKey) continue;
      if (this.live(record)) {
        // Used again meanwhile: put its new deadline back.
        await storeCall(() => redis.zadd(deadlinesKey, this.deadlineOf(record), key));
        continue;
      }
      await storeCall(() => execAll(redis.multi().del(redisKey).srem(this.indexKey(record.userId), key)));
      this.options.onExpired?.(key, record);
    }
  }

  async close(): Promise<void> {
    clearInterval(this.sweeper);
  }

  private redisKeyOf(sessionKey: string): string | undefined {
    return sessionRedisKey(this.options.keyPrefix, sessionKey);
  }

  private indexKey(userId: string): string {
    return `${userKeys(this.options.keyPrefix, userId)}:sessions`;
  }

  /** Ends sessions of one user (their keys share a slot), tombstoning each; returns what they held. */
  private end(redisKeys: string[]): Promise<string[]> {
    return storeCall(() =>
      this.commands.ofgEndSessions(redisKeys.length * 2, ...redisKeys.flatMap((key) => [key, tombstoneOf(key)])),
    );
  }

  private deadlineOf(record: { expiresAt: number; lastSeenAt: number }): number {
    return Math.min(record.expiresAt, record.lastSeenAt + this.options.idleTimeoutMs);
  }

  private live(record: SessionRecord | undefined): SessionRecord | undefined {
    return record && this.options.clock() < this.deadlineOf(record) ? record : undefined;
  }

  private encode(key: string, record: SessionRecord): StoredSession {
    return {
      userId: record.userId,
      ...(record.platformToken === undefined
        ? {}
        : sealedTokenFields(this.options.cipher.encrypt(record.platformToken, binding(key, record.userId)))),
      authTime: record.authTime,
      amr: record.amr,
      createdAt: record.createdAt,
      expiresAt: record.expiresAt,
      lastSeenAt: record.lastSeenAt,
      ...(record.client ? { client: record.client } : {}),
    };
  }

  private decode(key: string, raw: string | null): SessionRecord | undefined {
    if (raw === null) return undefined;
    const stored = JSON.parse(raw) as StoredSession;
    const sealed = sealedTokenOf(stored);
    return {
      userId: stored.userId,
      ...(sealed === undefined
        ? {}
        : { platformToken: this.options.cipher.decrypt(sealed, binding(key, stored.userId)) }),
      authTime: stored.authTime,
      amr: stored.amr,
      createdAt: stored.createdAt,
      expiresAt: stored.expiresAt,
      lastSeenAt: stored.lastSeenAt,
      ...(stored.client ? { client: stored.client } : {}),
    };
  }
}

function tombstoneOf(redisKey: string): string {
  return `${redisKey}:ended`;
}

/** What a stored token is bound to: decrypting it under another session or user fails. */
function binding(key: string, userId: string): string {
  return `session:${key}|user:${userId}`;
}
