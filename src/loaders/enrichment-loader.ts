import DataLoader from 'dataloader';
import type { Direction, PlatformEnrichmentResult } from '../upstream/platform-types.js';
import type { EnrichmentBatcher } from './enrichment-batcher.js';
import type { EnrichmentCache } from './enrichment-cache.js';

/** What identifies a lookup: two lookups with the same fields are the same upstream query. */
export interface EnrichmentLookup {
  description: string;
  connectionId?: string;
  amount?: number;
  direction?: Direction;
}

export interface EnrichmentLoader {
  /** Results for one lookup; joins whatever batch is forming for this request. */
  load(lookup: EnrichmentLookup): Promise<readonly PlatformEnrichmentResult[]>;
  /** Counts lookups against the per-request limit; false when `count` more would exceed it. */
  reserve(count: number): boolean;
}

export function enrichmentCacheKey(lookup: EnrichmentLookup): string {
  return JSON.stringify([
    lookup.description,
    lookup.connectionId ?? null,
    lookup.amount ?? null,
    lookup.direction ?? null,
  ]);
}

interface KeyedLookup {
  lookup: EnrichmentLookup;
  key: string;
}

export interface EnrichmentLoaderOptions {
  batcher: EnrichmentBatcher;
  cache: EnrichmentCache | undefined;
  maxBatch: number;
  maxLookupsPerRequest: number;
  /** When the request has nothing in flight that could still add lookups (see RequestActivity). */
  whenIdle: (dispatch: () => void) => void;
  onCacheLookup?: (hit: boolean) => void;
  /** The request's id, sent upstream as `x-request-id` with the searches it opens. */
  requestId?: string;
}

/**
 * One loader per GraphQL request (or subscription event). Every lookup the request makes, whatever
 * the document's shape (several `enrich` fields, aliases, `Transaction.enrichment` under any number
 * of `transactions` fields, lookups known only after a page of rows arrived), lands in one batch:
 * the batch is dispatched when the request is idle, not on a fixed tick. DataLoader then splits it
 * into calls of at most `maxBatch` distinct queries; identical lookups are sent once, cached
 * results not at all, and the batcher may share calls with concurrent requests.
 */
export function createEnrichmentLoader(options: EnrichmentLoaderOptions): EnrichmentLoader {
  // Each lookup's key is built once, in `load`, and travels with it: the cache, DataLoader's
  // de-duplication and the batcher's sharing all use that one string.
  const loader = new DataLoader<KeyedLookup, readonly PlatformEnrichmentResult[], string>(
    async (entries) => {
      const keys = entries.map((entry) => entry.key);
      const outcomes = await options.batcher.search(
        entries.map((entry) => entry.lookup),
        keys,
        options.requestId,
      );
      return outcomes.map((outcome, index) => {
        if (!(outcome instanceof Error)) options.cache?.set(keys[index]!, outcome);
        return outcome;
      });
    },
    { maxBatchSize: options.maxBatch, cacheKeyFn: (entry) => entry.key, batchScheduleFn: options.whenIdle },
  );

  let reserved = 0;
  return {
    load(lookup) {
      const key = enrichmentCacheKey(lookup);
      const cached = options.cache?.get(key);
      if (options.cache) options.onCacheLookup?.(cached !== undefined);
      return cached ? Promise.resolve(cached) : loader.load({ lookup, key });
    },
    reserve(count) {
      if (reserved + count > options.maxLookupsPerRequest) return false;
      reserved += count;
      return true;
    },
  };
}
