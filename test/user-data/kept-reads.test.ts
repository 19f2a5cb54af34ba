import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { createLogger } from '@open-finance-gateway/common/logger';
import { createTokenCipher } from '../../src/auth/token-cipher.js';
import { parseRedisUrls, type RedisConnectionSettings } from '../../src/config/redis-settings.js';
import { createRedisClient } from '../../src/redis/redis-client.js';
import { createKeptReads, type LookupResult } from '../../src/user-data/kept-reads.js';
import { createMemoryUserDataStore } from '../../src/user-data/memory-user-data-store.js';
import { createRedisUserDataStore } from '../../src/user-data/redis-user-data-store.js';
import type { UserDataEntry, UserDataStore } from '../../src/user-data/user-data-store.js';
import { applyWebhookChange } from '../../src/user-data/webhook-changes.js';
import { track } from '../support/leftovers.js';
import { SHARED_REDIS, testPrefix } from '../support/redis.js';
import { startStallableRedis } from '../support/stallable-redis.js';

const logger = createLogger({ level: 'silent' });
const LIMITS = { maxAgeMs: 60_000, userMaxBytes: 1024 * 1024, budgetBytes: 64 * 1024 * 1024 };

async function redisStore(connection: RedisConnectionSettings = SHARED_REDIS, commandTimeoutMs = 1_000) {
  const redis = createRedisClient({ connection, commandTimeoutMs, logger, role: 'test' });
  await redis.connect();
  track(() => redis.disconnect());
  return createRedisUserDataStore({
    ...LIMITS,
    redis,
    keyPrefix: testPrefix(),
    cipher: createTokenCipher([{ id: 'k1', key: randomBytes(32) }]),
    clock: Date.now,
  });
}

/** A platform read the test holds until it says so; `started` resolves once the read began. */
function heldRead<T>() {
  let release!: (value: T) => void;
  let began!: () => void;
  const started = new Promise<void>((resolve) => (began = resolve));
  const answer = new Promise<T>((resolve) => (release = resolve));
  return {
    started,
    release,
    fetch: () => {
      began();
      return answer;
    },
  };
}

const ACCOUNT: UserDataEntry = { kind: 'account', accountId: 'acc_1' };
const PAGE: UserDataEntry = { kind: 'transactions', accountId: 'acc_1', cursor: null };
const user = () => `user_${randomBytes(6).toString('hex')}`;

describe.each([
  ['memory', async () => createMemoryUserDataStore({ ...LIMITS, clock: Date.now })],
  ['redis', () => redisStore()],
] as const)('a read racing an invalidation (%s)', (_name, open) => {
  it.each([
    ['ACCOUNT UPDATE', ACCOUNT, 'ACCOUNT', 'UPDATE', { item_id: 'acc_1', updated_fields: ['balance'] }],
    [
      'TRANSACTION DEFAULT_UPDATE',
      PAGE,
      'TRANSACTION',
      'DEFAULT_UPDATE',
      { item_id: 'acc_1', new_transaction_ids: ['t'] },
    ],
    ['TRANSACTION DELETE', PAGE, 'TRANSACTION', 'DELETE', { item_id: 'acc_1', removed_transactions: ['t'] }],
    ['TOKEN DELETE', ACCOUNT, 'TOKEN', 'DELETE', { item_id: 'user_token_x' }],
  ] as const)('never writes its older answer back after a %s', async (_label, entry, type, code, payload) => {
    const store: UserDataStore = await open();
    const results: LookupResult[] = [];
    const kept = createKeptReads({ store, clock: Date.now, onLookup: (result) => results.push(result) });
    const u = user();
    // The platform read starts (its stamp taken), the webhook's change lands, then the read ends.
    const held = heldRead<{ version: string }>();
    const racing = kept.read(u, entry, held.fetch);
    await held.started;
    expect(await applyWebhookChange(store, u, type, code, payload)).toBe(`${type}_${code}`);
    held.release({ version: 'before the webhook' });
    expect(await racing).toEqual({ version: 'before the webhook' });
    // Nothing was written back: the next read asks the platform, and keeps that answer.
    expect((await store.read(u, entry)).value).toBeUndefined();
    expect(await kept.read(u, entry, async () => ({ version: 'after the webhook' }))).toEqual({
      version: 'after the webhook',
    });
    expect(await kept.read(u, entry, () => Promise.reject(new Error('not asked')))).toEqual({
      version: 'after the webhook',
    });
    expect(results).toEqual(['miss', 'miss', 'hit']);
  });
});

describe('a stalled Redis', () => {
  it('is bypassed: reads go to the platform (never an older copy), then to the store again once it answers', async () => {
    const own = await startStallableRedis();
    const connection = parseRedisUrls(own.url, 'standalone', undefined, undefined);
    if (typeof connection === 'string') throw new Error(connection);
    const store = await redisStore(connection, 200);
    let now = Date.now();
    const results: LookupResult[] = [];
    const failures: unknown[] = [];
    const kept = createKeptReads({
      store,
      clock: () => now,
      bypassMs: 5_000,
      onLookup: (result) => results.push(result),
      onStoreFailure: (error) => failures.push(error),
    });
    const u = user();
    await kept.read(u, ACCOUNT, async () => ({ balance: 1 }));
    expect(await kept.read(u, ACCOUNT, async () => ({ balance: 2 }))).toEqual({ balance: 1 });

    own.pause();
    try {
      // The platform's answer, after one command timeout; then without asking Redis at all.
      expect(await kept.read(u, ACCOUNT, async () => ({ balance: 3 }))).toEqual({ balance: 3 });
      expect(failures).toHaveLength(1);
      expect(await kept.read(u, ACCOUNT, async () => ({ balance: 4 }))).toEqual({ balance: 4 });
      expect(failures).toHaveLength(1);
    } finally {
      own.resume();
    }
    now += 5_000;
    expect(await kept.read(u, ACCOUNT, async () => ({ balance: 5 }))).toEqual({ balance: 1 });
    expect(results).toEqual(['miss', 'hit', 'bypass', 'bypass', 'hit']);
  });
});
