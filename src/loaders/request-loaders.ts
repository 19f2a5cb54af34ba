import DataLoader from 'dataloader';
import type { EnrichmentClient } from '../upstream/enrichment-client.js';
import type { PlatformAccount, PlatformPayment, PlatformTransfer, PlatformUser } from '../upstream/platform-types.js';
import type { EnrichmentCache } from './enrichment-cache.js';
import { createEnrichmentLoader, type EnrichmentLoader } from './enrichment-loader.js';
import type { UserPlatform } from './user-platform.js';

/** Long-lived dependencies from which each request's loaders are built. */
export interface LoaderDependencies {
  enrichment: EnrichmentClient;
  enrichmentCache: EnrichmentCache | undefined;
  enrichmentMaxBatch: number;
  enrichmentMaxLookupsPerRequest: number;
}

export interface RequestLoaders {
  enrichment: EnrichmentLoader;
  me: DataLoader<'me', PlatformUser>;
  accounts: DataLoader<'all', PlatformAccount[]>;
  /** One account by id; undefined when the platform does not know it (or it was revoked). */
  account: DataLoader<string, PlatformAccount | undefined>;
  payment: DataLoader<string, PlatformPayment | undefined>;
  transfer: DataLoader<string, PlatformTransfer | undefined>;
}

/**
 * Fresh loaders for one request (or one subscription event): their caches never outlive it, so a
 * value is read from the platform at most once per request and never served stale across them.
 */
export function createRequestLoaders(deps: LoaderDependencies, platform: UserPlatform): RequestLoaders {
  return {
    enrichment: createEnrichmentLoader({
      client: deps.enrichment,
      cache: deps.enrichmentCache,
      maxBatch: deps.enrichmentMaxBatch,
      maxLookupsPerRequest: deps.enrichmentMaxLookupsPerRequest,
    }),
    me: new DataLoader(async (keys) => {
      const me = await platform.getMe();
      return keys.map(() => me);
    }),
    accounts: new DataLoader(async (keys) => {
      const accounts = await platform.listAccounts();
      return keys.map(() => accounts);
    }),
    // The platform has no batch read for accounts: one GET each, in parallel.
    account: new DataLoader((ids) => Promise.all(ids.map((id) => platform.getAccount(id).catch((error: Error) => error)))),
    payment: new DataLoader((ids) => Promise.all(ids.map((id) => platform.getPayment(id).catch((error: Error) => error)))),
    transfer: new DataLoader((ids) => Promise.all(ids.map((id) => platform.getTransfer(id).catch((error: Error) => error)))),
  };
}
