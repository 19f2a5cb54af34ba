import DataLoader from 'dataloader';
import type { TransactionFilter } from '../upstream/core-user-calls.js';
import type {
  PlatformAccount,
  PlatformPayment,
  PlatformTransactionPage,
  PlatformTransfer,
  PlatformUser,
} from '../upstream/platform-types.js';
import type { KeptReads } from '../user-data/kept-reads.js';
import type { UserDataEntry } from '../user-data/user-data-store.js';
import type { EnrichmentBatcher } from './enrichment-batcher.js';
import type { EnrichmentCache } from './enrichment-cache.js';
import { createEnrichmentLoader, type EnrichmentLoader } from './enrichment-loader.js';
import type { JoinableRequests, RequestActivity } from './request-activity.js';
import type { UserClient } from './user-client.js';

/** Long-lived dependencies from which each request's loaders are built. */
export interface LoaderDependencies {
  /** Sends lookups to `/v1/search`, shared with concurrent requests when a window is set. */
  enrichment: EnrichmentBatcher;
  enrichmentCache: EnrichmentCache | undefined;
  enrichmentMaxBatch: number;
  enrichmentMaxLookupsPerRequest: number;
  /** Told of each lookup: answered from the cache or not. */
  onEnrichmentCacheLookup?: (hit: boolean) => void;
  /** The user-data store in front of `me`, accounts and settled transactions; none when USER_DATA_STORE=off. */
  keptReads?: KeptReads;
  /** The HTTP requests that may still add lookups to a shared enrichment call (the batcher's). */
  joinable?: JoinableRequests;
}

/** One upstream page of settled transactions: the query and the platform's cursor. */
export interface TransactionPageKey {
  filter: TransactionFilter;
  cursor: string | null;
}

export interface RequestLoaders {
  enrichment: EnrichmentLoader;
  me: DataLoader<'me', PlatformUser>;
  accounts: DataLoader<'all', PlatformAccount[]>;
  /** One account by id; undefined when the platform does not know it (or it was revoked). */
  account: DataLoader<string, PlatformAccount | undefined>;
  /** One upstream page of settled transactions; the same page twice in a request is read once. */
  transactionPage: DataLoader<TransactionPageKey, PlatformTransactionPage, string>;
  payment: DataLoader<string, PlatformPayment | undefined>;
  transfer: DataLoader<string, PlatformTransfer | undefined>;
  /**
   * The app's access to an account ended (`revokeAccount`): what the user-data store kept of it
   * (the account, the list, its transactions) is dropped, and this request reads them afresh.
   */
  accountRevoked(accountId: string): Promise<void>;
  /** Notes a refresh the platform accepted (with the user-data store on; best effort). */
  refreshRequested(accountId: string | undefined, requestedAt: Date): Promise<void>;
  /** The refresh noted and not yet answered by the platform's webhooks; undefined when none (or the store is off). */
  openRefresh(): Promise<{ requestedAt: Date; accountId?: string } | undefined>;
}

/**
 * A loader over a read the platform has no batch form of: one GET per distinct id, in parallel;
 * a failed read fails only its own key.
 */
function oneReadEach<T>(read: (id: string) => Promise<T>): DataLoader<string, T> {
  return new DataLoader<string, T>((ids) => Promise.all(ids.map((id) => read(id).catch((error: Error) => error))));
}

/**
 * Fresh loaders for one request (or one subscription event): their caches never outlive it, so a
 * value is read from the platform at most once per request and never served stale across them.
 * Each is built on first use; a request that needs one loader does not pay for six. Enrichment
 * lookups are dispatched when `activity` says the request is idle.
 *
 * The getters are the class's, not accessors defined on each request's object: V8 keeps an
 * accessor defined on an object in the old generation, so everything its getter reaches (the
 * loaders' caches, the upstream answers in them) outlived every young collection until the next
 * full one.
 */
class LazyRequestLoaders implements RequestLoaders {
  private built: Partial<RequestLoaders> = {};

  constructor(
    private readonly deps: LoaderDependencies,
    /** The user's platform access, bound only when a loader first calls it (enrichment never does). */
    private readonly userClient: () => UserClient,
    private readonly activity: RequestActivity,
    /** Sent upstream as `x-request-id` with the searches this request opens. */
    private readonly requestId: string | undefined,
    /** Whose data the kept reads are. */
    private readonly userId: string,
  ) {}

  /** Through the user-data store when there is one: a kept answer makes no platform call. */
  private kept<T>(entry: UserDataEntry, fetch: () => Promise<T>): Promise<T> {
    const kept = this.deps.keptReads;
    return kept ? kept.read(this.userId, entry, fetch) : fetch();
  }

  get enrichment(): EnrichmentLoader {
    return (this.built.enrichment ??= createEnrichmentLoader({
      batcher: this.deps.enrichment,
      cache: this.deps.enrichmentCache,
      maxBatch: this.deps.enrichmentMaxBatch,
      maxLookupsPerRequest: this.deps.enrichmentMaxLookupsPerRequest,
      whenIdle: (dispatch) => this.activity.whenIdle(dispatch),
      onQueued: () => this.activity.lookupsQueued(),
      onCacheLookup: this.deps.onEnrichmentCacheLookup,
      requestId: this.requestId,
    }));
  }

  get me(): RequestLoaders['me'] {
    return (this.built.me ??= new DataLoader(async (keys) => {
      const me = await this.kept({ kind: 'me' }, () => this.userClient().getMe());
      return keys.map(() => me);
    }));
  }

  get accounts(): RequestLoaders['accounts'] {
    return (this.built.accounts ??= new DataLoader(async (keys) => {
      const accounts = await this.kept({ kind: 'accounts' }, () => this.userClient().listAccounts());
      return keys.map(() => accounts);
    }));
  }

  get account(): RequestLoaders['account'] {
    return (this.built.account ??= oneReadEach((accountId) =>
      this.kept({ kind: 'account', accountId }, () => this.userClient().getAccount(accountId)),
    ));
  }

  get transactionPage(): RequestLoaders['transactionPage'] {
    return (this.built.transactionPage ??= new DataLoader(
      (keys) =>
        Promise.all(
          keys.map(({ filter, cursor }) =>
            this.kept({ kind: 'transactions', ...filter, cursor }, () =>
              this.userClient().listTransactions(filter, cursor),
            ).catch((error: Error) => error),
          ),
        ),
      { cacheKeyFn: ({ filter, cursor }) => JSON.stringify([filter.accountId, filter.start, filter.end, cursor]) },
    ));
  }

  async accountRevoked(accountId: string): Promise<void> {
    await this.deps.keptReads?.change(this.userId, [
      { kind: 'account', accountId },
      { kind: 'transactions', accountId },
    ]);
    this.built.accounts?.clearAll();
    this.built.account?.clear(accountId);
    this.built.transactionPage?.clearAll();
  }

  async refreshRequested(accountId: string | undefined, requestedAt: Date): Promise<void> {
    await this.deps.keptReads?.noteRefresh(this.userId, {
      requestedAt: requestedAt.getTime(),
      ...(accountId ? { accountId } : {}),
    });
  }

  async openRefresh(): Promise<{ requestedAt: Date; accountId?: string } | undefined> {
    const note = await this.deps.keptReads?.openRefresh(this.userId);
    return note && { requestedAt: new Date(note.requestedAt), accountId: note.accountId };
  }

  get payment(): RequestLoaders['payment'] {
    return (this.built.payment ??= oneReadEach((id) => this.userClient().getPayment(id)));
  }

  get transfer(): RequestLoaders['transfer'] {
    return (this.built.transfer ??= oneReadEach((id) => this.userClient().getTransfer(id)));
  }
}

export function createRequestLoaders(
  deps: LoaderDependencies,
  userClient: () => UserClient,
  activity: RequestActivity,
  requestId: string | undefined,
  userId: string,
): RequestLoaders {
  return new LazyRequestLoaders(deps, userClient, activity, requestId, userId);
}

/**
 * The loaders of `shared` (another execution's, whose reads this one reuses) with an enrichment
 * loader of this execution's own. Forwarding getters on a class, for the reason given on
 * LazyRequestLoaders; not `shared` as a prototype, which would give V8 new hidden classes per use.
 */
class SharedReads implements RequestLoaders {
  constructor(
    private readonly shared: RequestLoaders,
    private readonly ownEnrichment: () => EnrichmentLoader,
  ) {}

  get enrichment(): EnrichmentLoader {
    return this.ownEnrichment();
  }

  get me(): RequestLoaders['me'] {
    return this.shared.me;
  }

  get accounts(): RequestLoaders['accounts'] {
    return this.shared.accounts;
  }

  get account(): RequestLoaders['account'] {
    return this.shared.account;
  }

  get transactionPage(): RequestLoaders['transactionPage'] {
    return this.shared.transactionPage;
  }

  get payment(): RequestLoaders['payment'] {
    return this.shared.payment;
  }

  get transfer(): RequestLoaders['transfer'] {
    return this.shared.transfer;
  }

  accountRevoked(accountId: string): Promise<void> {
    return this.shared.accountRevoked(accountId);
  }

  refreshRequested(accountId: string | undefined, requestedAt: Date): Promise<void> {
    return this.shared.refreshRequested(accountId, requestedAt);
  }

  openRefresh(): ReturnType<RequestLoaders['openRefresh']> {
    return this.shared.openRefresh();
  }
}

export function withOwnEnrichment(shared: RequestLoaders, enrichment: () => EnrichmentLoader): RequestLoaders {
  return new SharedReads(shared, enrichment);
}
