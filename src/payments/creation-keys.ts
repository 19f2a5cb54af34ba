import { LRUCache } from 'lru-cache';
import type { Clock } from '../lib/clock.js';

/**
 * Which idempotency key a money-moving creation uses when the client gave none. The first
 * creation of a given input by a user claims a fresh key for the dedupe window; the same input
 * again within the window (a double tap, a client retry after a lost answer) gets the same key,
 * so the platform replays the first payment instead of paying twice. Claims are atomic (Redis
 * `SET NX GET`), so two instances racing the same retry agree on one key.
 */
export interface CreationKeyStore {
  /** The key already claimed for `fingerprint` within the window, or `proposed`, now claimed. */
  claim(fingerprint: string, proposed: string, windowMs: number): Promise<string>;
}

export function createMemoryCreationKeys(options: { clock: Clock; maxEntries?: number }): CreationKeyStore {
  const claimed = new LRUCache<string, string>({
    max: options.maxEntries ?? 100_000,
    ttlAutopurge: false,
    ttlResolution: 0,
    perf: { now: options.clock },
  });
  return {
    async claim(fingerprint, proposed, windowMs) {
      const existing = claimed.get(fingerprint);
      if (existing !== undefined) return existing;
      claimed.set(fingerprint, proposed, { ttl: windowMs });
      return proposed;
    },
  };
}
