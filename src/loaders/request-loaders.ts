import DataLoader from 'dataloader';
import type {
  PlatformAccount,
  PlatformPayment,
  PlatformTransaction,
  PlatformTransfer,
  PlatformUser,
} from '../upstream/platform-types.js';
import type { KeptReads, UserKeptData } from '../user-data/kept-reads.js';
import type { EnrichmentBatcher } from './enrichment-batcher.js';
import type { EnrichmentCache } from './enrichment-cache.js';
import { createEnrichmentLoader, type EnrichmentLoader } from './enrichment-loader.js';
import type { JoinableRequests, RequestActivity } from './request-activity.js';
import { platformPage, type TransactionPageKey, type TransactionRows } from './transaction-pages.js';
import { syncOf, type TransactionsSync } from './transaction-sync.js';
import type { UserClient } from './user-client.js';

export type { TransactionPageKey, TransactionRows } from './transaction-pages.js';

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

export interface RequestLoaders {
  enrichment: EnrichmentLoader;
  me: DataLoader<'me', PlatformUser>;
  accounts: DataLoader<'all', PlatformAccount[]>;
  /** One account by id; undefined when the platform does not know it (or it was revoked). */
  account: DataLoader<string, PlatformAccount | undefined>;
  /**
   * A page of settled transactions, from the ledger when the user-data store is on (the platform
   * is read only where the ledger does not reach yet); the same page twice in a request is read once.
   */
  transactionPage: DataLoader<TransactionPageKey, TransactionRows, string>;
  /** Settled transactions by id: those the ledger holds from it, the rest in one platform call. */
  transactionById: DataLoader<string, PlatformTransaction | undefined>;
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
  /** Transaction sync (see transaction-sync.ts); the same sync twice in a request is read once. */
  readonly sync: TransactionsSync;
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

  /** The user's kept data, read through their platform access; undefined with USER_DATA_STORE=off. */
  private get kept(): UserKeptData | undefined {
    const reads = this.deps.keptReads;
    return reads && (this.keptData ??= reads.forUser(this.userId, () => this.userClient()));
  }

  private keptData: UserKeptData | undefined;

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
      const kept = this.kept;
      const me = (await (kept ? kept.me() : this.userClient().getMe())) as PlatformUser;
      return keys.map(() => me);
    }));
  }

  get accounts(): RequestLoaders['accounts'] {
    return (this.built.accounts ??= new DataLoader(async (keys) => {
      const kept = this.kept;
      const accounts = (await (kept ? kept.accounts() : this.userClient().listAccounts())) as PlatformAccount[];
      return keys.map(() => accounts);
    }));
  }

  get account(): RequestLoaders['account'] {
    return (this.built.account ??= oneReadEach(async (accountId) => {
      const kept = this.kept;
      return (await (kept ? kept.account(accountId) : this.userClient().getAccount(accountId))) as
        PlatformAccount | undefined;
    }));
  }

  get transactionPage(): RequestLoaders['transactionPage'] {
    return (this.built.transactionPage ??= new DataLoader(
      (keys) => Promise.all(keys.map((key) => this.page(key).catch((error: Error) => error))),
      {
        cacheKeyFn: ({ filter, after, first }) =>
          JSON.stringify([filter.accountId, filter.start, filter.end, after?.at, after?.id, first]),
      },
    ));
  }

  private async page(key: TransactionPageKey): Promise<TransactionRows> {
    const { filter, after, first } = key;
    const range = (iso: string | undefined) => (iso === undefined ? undefined : Date.parse(iso));
    const kept = await this.kept?.transactions({
      accountId: filter.accountId,
      start: range(filter.start),
      end: range(filter.end),
      after,
      first,
    });
    if (kept) return { rows: kept.rows as unknown as PlatformTransaction[], hasNextPage: kept.hasNextPage };
    return platformPage((pageFilter, cursor) => this.userClient().listTransactions(pageFilter, cursor), key);
  }

  get transactionById(): RequestLoaders['transactionById'] {
    return (this.built.transactionById ??= new DataLoader(async (ids) => {
      const kept = this.kept;
      const rows = (await (kept
        ? kept.transactionsByIds(ids)
        : this.userClient().getTransactionsByIds([...ids]))) as PlatformTransaction[];
      const byId = new Map(rows.map((row) => [row._id, row]));
      return ids.map((id) => byId.get(id));
    }));
  }

  get sync(): TransactionsSync {
    return (this.syncs ??= syncOf(this.kept));
  }

  private syncs: TransactionsSync | undefined;

  async accountRevoked(accountId: string): Promise<void> {
    await this.deps.keptReads?.accountRevoked(this.userId, accountId);
    this.built.accounts?.clearAll();
    this.built.account?.clear(accountId);
    this.built.transactionPage?.clearAll();
    this.built.transactionById?.clearAll();
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

  get transactionById(): RequestLoaders['transactionById'] {
    return this.shared.transactionById;
  }

  get sync(): TransactionsSync {
    return this.shared.sync;
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
