import { LRUCache } from 'lru-cache';
import type { Clock } from '@open-finance-gateway/common/clock';
import type { PlatformEnrichmentResult } from '../upstream/platform-types.js';

/**
 * Cross-request cache of successful enrichment lookups. Enrichment carries no user data (the same
 * description means the same merchant for everyone), so sharing across users is safe. Bounded in
 * entries and age; failures are never cached.
 */
export type EnrichmentCache = LRUCache<string, readonly PlatformEnrichmentResult[]>;

export function createEnrichmentCache(options: {
  ttlMs: number;
  maxEntries: number;
  clock: Clock;
}): EnrichmentCache | undefined {
  if (options.ttlMs === 0 || options.maxEntries === 0) return undefined;
  // Staleness is checked against the injected clock (ttlResolution 0: no internal time caching).
  return new LRUCache({ max: options.maxEntries, ttl: options.ttlMs, ttlResolution: 0, perf: { now: options.clock } });
}
