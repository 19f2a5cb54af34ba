import DataLoader from 'dataloader';
import type { EnrichmentBatcher } from './enrichment-batcher.js';
import type { PlatformAccount, PlatformPayment, PlatformTransfer, PlatformUser } from '../upstream/platform-types.js';
import type { EnrichmentCache } from './enrichment-cache.js';
import { createEnrichmentLoader, type EnrichmentLoader } from './enrichment-loader.js';
import type { RequestActivity } from './request-activity.js';
import type { UserPlatform } from './user-platform.js';

/** Long-lived dependencies from which each request's loaders are built. */
export interface LoaderDependencies {
  /** Sends lookups to `/v1/search`, shared with concurrent requests when a window is set. */
  enrichment: EnrichmentBatcher;
  enrichmentCache: EnrichmentCache | undefined;
  enrichmentMaxBatch: number;
  enrichmentMaxLookupsPerRequest: number;
  /** Told of each lookup: answered from the cache or not. */
  onEnrichmentCacheLookup?: (hit: boolean) => void;
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
 * Each is built on first use; a request that needs one loader does not pay for six. Enrichment
 * lookups are dispatched when `activity` says the request is idle.
 */
/**
 * A loader over a read the platform has no batch form of: one GET per distinct id, in parallel;
 * a failed read fails only its own key.
 */
function oneReadEach<T>(read: (id: string) => Promise<T>): DataLoader<string, T> {
  return new DataLoader<string, T>((ids) => Promise.all(ids.map((id) => read(id).catch((error: Error) => error))));
}

export function createRequestLoaders(
  deps: LoaderDependencies,
  /** The user's platform access, bound only when a loader first calls it (enrichment never does). */
  platform: () => UserPlatform,
  activity: RequestActivity,
): RequestLoaders {
  const built: Partial<RequestLoaders> = {};
  const lazy = <K extends keyof RequestLoaders>(name: K, build: () => RequestLoaders[K]) => ({
    get: () => (built[name] ??= build()),
    enumerable: true,
  });
  const loaders = {} as RequestLoaders;
  Object.defineProperties(loaders, {
    enrichment: lazy('enrichment', () =>
      createEnrichmentLoader({
        batcher: deps.enrichment,
        cache: deps.enrichmentCache,
        maxBatch: deps.enrichmentMaxBatch,
        maxLookupsPerRequest: deps.enrichmentMaxLookupsPerRequest,
        whenIdle: (dispatch) => activity.whenIdle(dispatch),
        onCacheLookup: deps.onEnrichmentCacheLookup,
      }),
    ),
    me: lazy(
      'me',
      () =>
        new DataLoader(async (keys) => {
          const me = await platform().getMe();
          return keys.map(() => me);
        }),
    ),
    accounts: lazy(
      'accounts',
      () =>
        new DataLoader(async (keys) => {
          const accounts = await platform().listAccounts();
          return keys.map(() => accounts);
        }),
    ),
    account: lazy('account', () => oneReadEach((id) => platform().getAccount(id))),
    payment: lazy('payment', () => oneReadEach((id) => platform().getPayment(id))),
    transfer: lazy('transfer', () => oneReadEach((id) => platform().getTransfer(id))),
  });
  return loaders;
}
