import { randomBytes } from 'node:crypto';
import { Redis } from 'ioredis';
import { createLogger } from '@open-finance-gateway/common/logger';
import { parseRedisUrls, type RedisConnectionSettings } from '../../src/config/redis-settings.js';
import { createRedisEventLog } from '../../src/event-log/redis-event-log.js';
import { createRedisClient } from '../../src/redis/redis-client.js';
import { createRedisListener } from '../../src/redis/redis-listener.js';
import { track } from './leftovers.js';

export const REDIS_URL = process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';

/** The shared Redis as the gateway's settings describe it. */
export const SHARED_REDIS: RedisConnectionSettings = (() => {
  const parsed = parseRedisUrls(REDIS_URL, 'standalone', undefined, undefined);
  if (typeof parsed === 'string') throw new Error(`TEST_REDIS_URL ${parsed}`);
  return parsed;
})();

/** 32 random bytes as TOKEN_ENCRYPTION_KEYS wants them. */
export function tokenKeysSetting(id = 'k1'): string {
  return `${id}:${randomBytes(32).toString('base64')}`;
}

/** A key prefix of this test's own; its keys are deleted after the test (and only its keys). */
export function testPrefix(): string {
  const prefix = `ofg-test-${randomBytes(6).toString('hex')}:`;
  track(() => deleteKeys(prefix));
  return prefix;
}

/** A connection for the test itself, closed after it. */
export function testRedis(url = REDIS_URL): Redis {
  const redis = new Redis(url, { lazyConnect: false, maxRetriesPerRequest: 1 });
  track(() => redis.disconnect());
  return redis;
}

/** Every key under a prefix, as [key, value-ish text] pairs (strings, lists, sets, hashes, streams). */
export async function dumpKeys(prefix: string, url = REDIS_URL): Promise<Array<[string, string]>> {
  const redis = new Redis(url);
  try {
    const keys = await scan(redis, prefix);
    const out: Array<[string, string]> = [];
    for (const key of keys) {
      const type = await redis.type(key);
      const value =
        type === 'string'
          ? await redis.get(key)
          : type === 'list'
            ? JSON.stringify(await redis.lrange(key, 0, -1))
            : type === 'set'
              ? JSON.stringify(await redis.smembers(key))
              : type === 'hash'
                ? JSON.stringify(await redis.hgetall(key))
                : type === 'zset'
                  ? JSON.stringify(await redis.zrange(key, '0', '-1'))
                  : type === 'stream'
                    ? JSON.stringify(await redis.xrange(key, '-', '+'))
                    : '';
      out.push([key, value ?? '']);
    }
    return out;
  } finally {
    redis.disconnect();
  }
}

async function scan(redis: Redis, prefix: string): Promise<string[]> {
  const keys: string[] = [];
  let cursor = '0';
  do {
    const [next, batch] = await redis.scan(cursor, 'MATCH', `${prefix}*`, 'COUNT', 500);
    cursor = next;
    keys.push(...batch);
  } while (cursor !== '0');
  return keys;
}

async function deleteKeys(prefix: string): Promise<void> {
  const redis = new Redis(REDIS_URL, { maxRetriesPerRequest: 1 });
  try {
    const keys = await scan(redis, prefix);
    if (keys.length > 0) await redis.del(...keys);
  } finally {
    redis.disconnect();
  }
}

/**
 * What one gateway instance holds on Redis: a command client and a listener on it, both
 * connected, and disconnected after the test (after anything tracked later, which closes first).
 */
export async function instanceRedis(connection: RedisConnectionSettings) {
  const logger = createLogger({ level: 'silent' });
  const redis = createRedisClient({ connection, commandTimeoutMs: 1_000, logger, role: 'test' });
  const listener = createRedisListener({
    connection,
    commandTimeoutMs: 1_000,
    logger,
    role: 'test-listener',
    commands: redis,
  });
  await Promise.all([redis.connect(), listener.connect()]);
  track(() => {
    redis.disconnect();
    listener.disconnect();
  });
  return { redis, listener };
}

/** One gateway's event log on Redis: its own command and listener connections, closed after the test. */
export async function redisEventLog(connection: RedisConnectionSettings, keyPrefix: string, retentionMs: number) {
  const { redis, listener } = await instanceRedis(connection);
  const eventLog = createRedisEventLog({
    redis,
    listener,
    keyPrefix,
    clock: Date.now,
    retentionMs,
    logger: createLogger({ level: 'silent' }),
  });
  track(() => eventLog.close());
  return { eventLog, listener, redis };
}

/** A gateway's settings for the user-data store on Redis, under a key prefix of its own (given, or new). */
export function redisUserDataEnv(prefix = testPrefix()): Record<string, string> {
  return { REDIS_URL, REDIS_KEY_PREFIX: prefix, TOKEN_ENCRYPTION_KEYS: tokenKeysSetting(), USER_DATA_STORE: 'redis' };
}

/** The two user-data stores a test of kept data runs on, as `describe.each` takes them: memory and Redis. */
export const USER_DATA_STORES = [
  ['memory', () => ({ USER_DATA_STORE: 'memory' })],
  ['redis', () => redisUserDataEnv()],
] as const;
