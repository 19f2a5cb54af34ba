import { describe, expect, it } from 'vitest';
import { createLogger } from '@open-finance-gateway/common/logger';
import type { RedisConnectionSettings } from '../../src/config/redis-settings.js';
import type { IdempotencyKeyStore } from '../../src/idempotency/idempotency-key-store.js';
import { createMemoryIdempotencyKeyStore } from '../../src/idempotency/memory-idempotency-key-store.js';
import { createRedisIdempotencyKeyStore } from '../../src/idempotency/redis-idempotency-key-store.js';
import { createRedisClient } from '../../src/redis/redis-client.js';
import { track } from '../support/leftovers.js';
import { storeKinds } from '../support/redis-topologies.js';
import { SHARED_REDIS, testPrefix } from '../support/redis.js';

const logger = createLogger({ level: 'silent' });

async function redisCreationKeys(connection: RedisConnectionSettings = SHARED_REDIS): Promise<IdempotencyKeyStore> {
  const redis = createRedisClient({ connection, commandTimeoutMs: 1_000, logger, role: 'test' });
  await redis.connect();
  track(() => redis.disconnect());
  return createRedisIdempotencyKeyStore({ redis, keyPrefix: testPrefix() });
}

/** Lets a short lease or window lapse (the one wait here: Redis expiry has no clock to move). */
const lapse = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

for (const [kind, make] of [
  ['memory', async () => createMemoryIdempotencyKeyStore({ clock: Date.now })],
  ['redis', redisCreationKeys],
] as const) {
  describe(`creation keys contract: ${kind}`, () => {
    it('gives one caller the lease of a key, even raced; the others see it in progress, with its input', async () => {
      const store = await make();
      const raced = await Promise.all(Array.from({ length: 10 }, () => store.begin('key-1', 'input-a', 60_000)));
      expect(raced.filter((begun) => begun.held)).toHaveLength(1);
      for (const begun of raced.filter((b) => !b.held))
        expect(begun).toEqual({ held: false, record: { state: 'in-progress', input: 'input-a' } });
      expect((await store.begin('key-2', 'input-a', 60_000)).held).toBe(true);
    });

    it('finishes a lease into its result for the window; only the holder can, and a result is never released', async () => {
      const store = await make();
      const begun = await store.begin('key-1', 'input-a', 60_000);
      if (!begun.held) throw new Error('not held');
      await store.finish('key-1', 'not-the-holder', 'payment_x', 60_000);
      expect(await store.begin('key-1', 'input-a', 60_000)).toMatchObject({ record: { state: 'in-progress' } });
      await store.finish('key-1', begun.token, 'payment_1', 60_000);
      await store.release('key-1', begun.token);
      expect(await store.begin('key-1', 'input-a', 60_000)).toEqual({
        held: false,
        record: { state: 'done', input: 'input-a', itemId: 'payment_1' },
      });
    });

    it('releases a lease for the next try (holder only), and a lease whose writer vanished lapses by itself', async () => {
      const store = await make();
      const begun = await store.begin('key-1', 'input-a', 60_000);
      if (!begun.held) throw new Error('not held');
      await store.release('key-1', 'not-the-holder');
      expect((await store.begin('key-1', 'input-a', 60_000)).held).toBe(false);
      await store.release('key-1', begun.token);
      expect((await store.begin('key-1', 'input-a', 60_000)).held).toBe(true);

      // A lease nobody finishes or releases (its writes timed out) does not hold the key beyond it.
      const stranded = await store.begin('key-2', 'input-a', 30);
      await lapse(60);
      const next = await store.begin('key-2', 'input-a', 60_000);
      expect(next.held).toBe(true);
      // The stranded holder's late writes cannot overwrite the new holder's lease.
      if (!stranded.held) throw new Error('not held');
      await store.finish('key-2', stranded.token, 'payment_late', 60_000);
      await store.release('key-2', stranded.token);
      expect(await store.begin('key-2', 'input-a', 60_000)).toMatchObject({ record: { state: 'in-progress' } });
    });
  });
}

/** The first claim of an input wins, on every topology (the claim the payment mutations make). */
for (const [kind, make] of storeKinds(() => createMemoryIdempotencyKeyStore({ clock: Date.now }), redisCreationKeys)) {
  describe(`creation keys claim: ${kind}`, () => {
    it('creation keys: the first claim of an input wins, even raced, and holds for the window only', async () => {
      const idempotencyKeys = await make();
      const raced = await Promise.all(
        Array.from({ length: 10 }, (_, index) => idempotencyKeys.claim('fingerprint-1', `key-${index}`, 60_000)),
      );
      expect(new Set(raced).size).toBe(1);
      expect(await idempotencyKeys.claim('fingerprint-1', 'later', 60_000)).toBe(raced[0]);
      expect(await idempotencyKeys.claim('fingerprint-2', 'other', 60_000)).toBe('other');
      // A short window lapses (the one wait here: Redis expiry has no clock to move).
      expect(await idempotencyKeys.claim('fingerprint-3', 'first', 30)).toBe('first');
      await new Promise((resolve) => setTimeout(resolve, 60));
      expect(await idempotencyKeys.claim('fingerprint-3', 'second', 30)).toBe('second');
    });
  });
}
