import { randomUUID } from 'node:crypto';
import { LRUCache } from 'lru-cache';
import type { Clock } from '@open-finance-gateway/common/clock';
import type { IdempotencyKeyStore, StoredCreation } from './idempotency-key-store.js';

/** In process memory, bounded: one instance's keys, lost with the process. */
export function createMemoryIdempotencyKeyStore(options: { clock: Clock; maxEntries?: number }): IdempotencyKeyStore {
  const cache = <V extends object | string>() =>
    new LRUCache<string, V>({
      // The same bound as `max`, without `max`'s arrays of that length made up front (tens of ms at start).
      maxSize: options.maxEntries ?? 100_000,
      sizeCalculation: () => 1,
      ttlAutopurge: false,
      ttlResolution: 0,
      perf: { now: options.clock },
    });
  const claimed = cache<string>();
  const leases = cache<StoredCreation>();
  return {
    async claim(fingerprint, proposed, windowMs) {
      const existing = claimed.get(fingerprint);
      if (existing !== undefined) return existing;
      claimed.set(fingerprint, proposed, { ttl: windowMs });
      return proposed;
    },
    async begin(key, input, leaseMs) {
      const existing = leases.get(key);
      if (existing) {
        const { token: _token, ...record } = existing;
        return { held: false, record };
      }
      const token = randomUUID();
      leases.set(key, { state: 'in-progress', input, token }, { ttl: leaseMs });
      return { held: true, token };
    },
    async finish(key, token, itemId, windowMs) {
      const existing = leases.get(key);
      if (existing?.token !== token || existing.state !== 'in-progress') return;
      leases.set(key, { state: 'done', input: existing.input, itemId, token }, { ttl: windowMs });
    },
    async release(key, token) {
      const existing = leases.get(key);
      if (existing?.token === token && existing.state === 'in-progress') leases.delete(key);
    },
  };
}
