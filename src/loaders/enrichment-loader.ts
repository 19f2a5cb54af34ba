import DataLoader from 'dataloader';
import type { Direction, PlatformEnrichmentQuery, PlatformEnrichmentResult } from '../upstream/platform-types.js';
import type { EnrichmentClient } from '../upstream/enrichment-client.js';
import { UpstreamError } from '../upstream/upstream-error.js';
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
  return JSON.stringify([lookup.description, lookup.connectionId ?? null, lookup.amount ?? null, lookup.direction ?? null]);
}

export interface EnrichmentLoaderOptions {
  client: EnrichmentClient;
  cache: EnrichmentCache | undefined;
  maxBatch: number;
  maxLookupsPerRequest: number;
}

/**
 * One loader per GraphQL request. Every lookup made while the request executes (several `enrich`
 * fields, aliases, `Transaction.enrichment`) lands in one batch, split into calls of at most
 * `maxBatch` distinct queries. Identical lookups are sent once, cached results are not sent at
 * all, and results are matched back by a correlation id we assign, never by position.
 */
export function createEnrichmentLoader(options: EnrichmentLoaderOptions): EnrichmentLoader {
  const loader = new DataLoader<EnrichmentLookup, readonly PlatformEnrichmentResult[], string>(
    async (lookups) => {
      const queries: PlatformEnrichmentQuery[] = lookups.map((lookup, index) => ({
        id: `q${index}`,
        description: lookup.description,
        ...(lookup.connectionId !== undefined ? { _connection: lookup.connectionId } : {}),
        ...(lookup.amount !== undefined ? { amount: lookup.amount } : {}),
        ...(lookup.direction !== undefined ? { direction: lookup.direction } : {}),
      }));
      let items;
      try {
        items = await options.client.search(queries);
      } catch (error) {
        return lookups.map(() => error as Error);
      }
      const byId = new Map(items.filter((item) => item.id !== undefined).map((item) => [item.id!, item.results]));
      return lookups.map((lookup, index) => {
        const results = byId.get(`q${index}`);
        if (!results) return new UpstreamError('enrichment', 'bad_response', `search response has no item for query q${index}`);
        options.cache?.set(enrichmentCacheKey(lookup), results);
        return results;
      });
    },
    {
      maxBatchSize: options.maxBatch,
      cacheKeyFn: enrichmentCacheKey,
      // setImmediate, not the default microtask tick: resolvers that await something first (a
      // parent field, argument handling) still join the same batch.
      batchScheduleFn: (callback) => setImmediate(callback),
    },
  );

  let reserved = 0;
  return {
    load(lookup) {
      const cached = options.cache?.get(enrichmentCacheKey(lookup));
      return cached ? Promise.resolve(cached) : loader.load(lookup);
    },
    reserve(count) {
      if (reserved + count > options.maxLookupsPerRequest) return false;
      reserved += count;
      return true;
    },
  };
}
