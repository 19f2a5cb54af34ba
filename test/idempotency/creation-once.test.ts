import { describe, expect, it } from 'vitest';
import { createCreationOnce } from '../../src/idempotency/creation-once.js';
import type { IdempotencyKeyStore } from '../../src/idempotency/idempotency-key-store.js';
import { createMemoryIdempotencyKeyStore } from '../../src/idempotency/memory-idempotency-key-store.js';
import { StoreUnavailableError } from '../../src/lib/store-unavailable.js';

const KEY = { key: 'order-1', upstreamKey: 'scoped-order-1', input: 'input-a' };
const LEASE_MS = 30;

/** A platform that honours Idempotency-Key as the real one does: the same key replays the first creation. */
function fakePlatform() {
  const created = new Map<string, { _id: string }>();
  let posts = 0;
  return {
    get posts() {
      return posts;
    },
    created,
    send: async (upstreamKey: string) => {
      posts += 1;
      const earlier = created.get(upstreamKey);
      if (earlier) return { item: earlier, replayed: true };
      const item = { _id: `payment_${created.size + 1}` };
      created.set(upstreamKey, item);
      return { item, replayed: false };
    },
    read: async (id: string) => [...created.values()].find((item) => item._id === id),
  };
}

/** The memory store with one operation made to time out (a write sent, its answer lost). */
function timingOut(
  operation: 'begin' | 'finish' | 'release',
  store = createMemoryIdempotencyKeyStore({ clock: Date.now }),
): IdempotencyKeyStore {
  return {
    ...store,
    [operation]: async (...args: unknown[]) => {
      await (store[operation] as (...a: unknown[]) => Promise<unknown>)(...args);
      throw new StoreUnavailableError('Command timed out');
    },
  };
}

const lapse = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('a creation whose key write times out', () => {
  it('sends nothing when taking the lease times out, and the key is free again once the lease lapses', async () => {
    const platform = fakePlatform();
    const store = createMemoryIdempotencyKeyStore({ clock: Date.now });
    const once = createCreationOnce({ store: timingOut('begin', store), windowMs: 60_000, leaseMs: LEASE_MS });
    await expect(once.create(KEY, platform.send, platform.read)).rejects.toBeInstanceOf(StoreUnavailableError);
    expect(platform.posts).toBe(0);
    await lapse(LEASE_MS * 2);
    expect((await store.begin(KEY.upstreamKey, KEY.input, 60_000)).held).toBe(true);
  });

  it('still answers with the creation when recording it times out, and a later retry replays it, never a second one', async () => {
    const platform = fakePlatform();
    const once = createCreationOnce({ store: timingOut('finish'), windowMs: 60_000, leaseMs: LEASE_MS });
    const first = await once.create(KEY, platform.send, platform.read);
    expect(first).toEqual({ item: { _id: 'payment_1' }, replayed: false });
    await lapse(LEASE_MS * 2);
    const retry = await once.create(KEY, platform.send, platform.read);
    expect(retry.item).toEqual({ _id: 'payment_1' });
    expect(platform.created.size).toBe(1);
  });

  it('frees the key after a failed call even when the release times out: the lease lapses, and the retry goes through', async () => {
    const platform = fakePlatform();
    const once = createCreationOnce({ store: timingOut('release'), windowMs: 60_000, leaseMs: LEASE_MS });
    const lost = new Error('answer lost');
    await expect(once.create(KEY, () => Promise.reject(lost), platform.read)).rejects.toBe(lost);
    await lapse(LEASE_MS * 2);
    expect((await once.create(KEY, platform.send, platform.read)).item).toEqual({ _id: 'payment_1' });
    expect(platform.posts).toBe(1);
  });
});
