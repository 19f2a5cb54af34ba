import { LRUCache } from 'lru-cache';
import type { Clock } from '../lib/clock.js';

/**
 * Hashes of webhook bodies already handled. The platform signs no timestamp, so a redelivery is
 * byte-identical: remembering the body's hash for longer than the sender's three-day retry
 * horizon means a redelivery publishes nothing new. A claim is atomic (Redis `SET NX`), so the
 * same body raced to two instances is processed once; a claim whose processing failed is
 * released, so the platform's retry is processed.
 */
export interface DeliveryLedger {
  /** True when this caller now owns the body; false when it was claimed before. */
  claim(bodyHash: string): Promise<boolean>;
  release(bodyHash: string): Promise<void>;
}

export const DEDUPLICATION_WINDOW_MS = 4 * 86_400_000;

export function createMemoryDeliveryLedger(options: { clock: Clock; maxEntries?: number }): DeliveryLedger {
  const seen = new LRUCache<string, true>({
    max: options.maxEntries ?? 200_000,
    ttl: DEDUPLICATION_WINDOW_MS,
    ttlResolution: 0,
    perf: { now: options.clock },
  });
  return {
    async claim(bodyHash) {
      if (seen.has(bodyHash)) return false;
      seen.set(bodyHash, true);
      return true;
    },
    async release(bodyHash) {
      seen.delete(bodyHash);
    },
  };
}
