import { int, setting, type SettingGroup } from '../setting-types.js';

export const ENRICHMENT_SETTINGS = {
  title: 'Enrichment',
  settings: [
    setting({
      name: 'ENRICHMENT_MAX_BATCH',
      type: int(1, 1000),
      default: 100,
      usedBy: 'enrichment batching',
      description:
        "Most queries in one `/v1/search` call. The live service is reported to take up to 1000; 100 keeps each call's latency and response size modest.",
    }),
    setting({
      name: 'ENRICHMENT_MAX_QUERIES_PER_REQUEST',
      type: int(1, 10_000),
      default: 1000,
      usedBy: '`enrich`, `Transaction.enrichment`, subscription events',
      description:
        'Most lookups one GraphQL request (or one subscription event) may make, counted across the whole request. More: `BAD_USER_INPUT` with `limit` and `requested`. A variable carrying a longer list is refused before it is coerced.',
    }),
    setting({
      name: 'ENRICHMENT_TIMEOUT_MS',
      type: int(100, 120_000),
      default: 5_000,
      usedBy: 'enrichment calls',
      description: 'Deadline for one enrichment call.',
    }),
    setting({
      name: 'ENRICHMENT_CACHE_TTL_SECONDS',
      type: int(0, 7 * 86_400),
      default: 3600,
      boundsNote: ' (7 days); `0` turns the cache off',
      usedBy: 'the enrichment cache',
      description: 'Lifetime of a cached lookup.',
    }),
    setting({
      name: 'ENRICHMENT_CACHE_MAX_ENTRIES',
      type: int(0, 1_000_000),
      default: 10_000,
      boundsNote: '; `0` turns the cache off',
      usedBy: 'the enrichment cache',
      description: 'Cache size cap (least recently used evicted).',
    }),
    setting({
      name: 'ENRICHMENT_BATCH_WINDOW_MS',
      type: int(0, 100),
      default: 2,
      boundsNote: '; `0` turns sharing off',
      usedBy: 'batching across requests',
      description:
        'The longest lookups wait to share a `/v1/search` call with concurrent requests; a call goes out sooner when no request in flight could still join it, and at once when full.',
      envNote: 'lookups of concurrent requests share calls; 0 turns it off',
    }),
  ],
} as const satisfies SettingGroup;
