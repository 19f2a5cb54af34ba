import type DataLoader from 'dataloader';
import type { CoreClient } from '../upstream/core-client.js';
import type { EnrichmentClient } from '../upstream/enrichment-client.js';
import type { PlatformUser } from '../upstream/platform-types.js';
import type { EnrichmentCache } from './enrichment-cache.js';
import { createEnrichmentLoader, type EnrichmentLoader } from './enrichment-loader.js';
import { createUserLoader } from './user-loader.js';

/** Long-lived dependencies from which each request's loaders are built. */
export interface LoaderDependencies {
  core: CoreClient;
  enrichment: EnrichmentClient;
  enrichmentCache: EnrichmentCache | undefined;
  enrichmentMaxBatch: number;
  enrichmentMaxLookupsPerRequest: number;
}

export interface RequestLoaders {
  enrichment: EnrichmentLoader;
  me: DataLoader<'me', PlatformUser>;
}

/** Fresh loaders for one request (or one subscription event): their caches never outlive it. */
export function createRequestLoaders(deps: LoaderDependencies, accessToken: string): RequestLoaders {
  return {
    enrichment: createEnrichmentLoader({
      client: deps.enrichment,
      cache: deps.enrichmentCache,
      maxBatch: deps.enrichmentMaxBatch,
      maxLookupsPerRequest: deps.enrichmentMaxLookupsPerRequest,
    }),
    me: createUserLoader(deps.core, accessToken),
  };
}
