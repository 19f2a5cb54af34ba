import { LRUCache } from 'lru-cache';
import type { Clock } from '../lib/clock.js';

/**
 * Hashes of webhook bodies already handled. The platform signs no timestamp, so a redelivery is
 * byte-identical: remembering the body's hash for longer than the sender's three-day retry
 * horizon means a redelivery publishes nothing new. In memory now; a shared store (Redis SET with
 * EX) implements the same two methods for several instances.
 */
export interface DeliveryLedger {
  has(bodyHash: string): Promise<boolean>;
  remember(bodyHash: string): Promise<void>;
}

export const DEDUPLICATION_WINDOW_MS = 4 * 86_400_000;

export function createMemoryDeliveryLedger(options: { clock: Clock; maxEntries?: number }): DeliveryLedger {
  const seen = new LRUCache<string, true>({ max: options.maxEntries ?? 200_000, ttl: DEDUPLICATION_WINDOW_MS, ttlResolution: 0, perf: { now: options.clock } });
  return {
    async has(bodyHash) {
      return seen.has(bodyHash);
    },
    async remember(bodyHash) {
      seen.set(bodyHash, true);
    },
  };
}
