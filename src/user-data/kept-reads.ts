import type { Clock } from '@open-finance-gateway/common/clock';
import { randomToken } from '@open-finance-gateway/common/ids';
import { StoreUnavailableError } from '../lib/store-unavailable.js';
import type { AccountChange } from './kept-accounts.js';
import { createKeptAnswers, type LookupResult } from './kept-answers.js';
import { KeptLedger, LedgerBusyError, type ReconciledTransactions } from './kept-ledger.js';
import type { KeptAccount, PlatformReads } from './kept-platform.js';
import { KeptSync, type SyncAnswer } from './kept-sync.js';
import { LedgerAccess } from './ledger-access.js';
import type { PageAnswer, PageQuery } from './ledger-pages.js';
import type { KeptRow } from './ledger-rows.js';
import { FIELD, TOPIC, type KeptDataTrust, type UserDataStore } from './user-data-store.js';
import { WebhookChanges } from './webhook-changes.js';

export type { LookupResult } from './kept-answers.js';

export interface RefreshNote {
  /** Milliseconds since the epoch. */
  requestedAt: number;
  accountId?: string;
}

export interface KeptReadsOptions {
  store: UserDataStore;
  clock: Clock;
  /** Past this, an answer is read again and the ledger reconciled before either is served. */
  maxAgeMs: number;
  onLookup?: (result: LookupResult) => void;
  /** A store failure (its message only: never an entry). */
  onStoreFailure?: (error: unknown) => void;
  /** After a failure, the store is skipped this long, so a stalled Redis costs one timeout, not one per read. @default 5000 */
  bypassMs?: number;
  /** What a reconciliation of the account list found, to publish as the ACCOUNT webhooks that were missed. */
  onAccountsReconciled?: (userId: string, changes: readonly AccountChange[]) => Promise<void>;
  /** What a reconciliation of the ledger found, to publish as the TRANSACTION webhooks that were missed. */
  onTransactionsReconciled?: ReconciledTransactions;
}

/** One user's kept data, read through their platform access. */
export interface UserKeptData {
  me(): Promise<unknown>;
  accounts(): Promise<KeptAccount[]>;
  /** Undefined when the platform does not know it. */
  account(accountId: string): Promise<KeptAccount | undefined>;
  /** A page from the ledger; undefined when the store is skipped (the caller pages the platform itself). */
  transactions(query: PageQuery): Promise<PageAnswer | undefined>;
  transactionsByIds(ids: readonly string[]): Promise<KeptRow[]>;
  /** Throws SyncCursorError for a cursor that cannot be continued from. */
  sync(cursor: string | undefined, count: number, start: number | undefined): Promise<SyncAnswer>;
}

export interface KeptReads {
  forUser(userId: string, platform: () => PlatformReads): UserKeptData;
  /** The app's access to an account ended (`revokeAccount`): it, its place in the list and its rows go. */
  accountRevoked(userId: string, accountId: string): Promise<void>;
  /** Drops everything kept for the user (a new consent). */
  forget(userId: string): Promise<void>;
  /** Notes a refresh the platform accepted; the first ACCOUNT or TRANSACTION webhook after it ends it. */
  noteRefresh(userId: string, refresh: RefreshNote): Promise<void>;
  /** The refresh noted and not yet answered by a webhook (nor older than the maximum age), if any. */
  openRefresh(userId: string): Promise<RefreshNote | undefined>;
}

/**
 * The reads of `me`, accounts and settled transactions through the user-data store. An answer
 * younger than the maximum age is served as kept; an older one is read again, and for the
 * account list and the ledger the differences are applied and published as the changes a lost
 * webhook would have announced. A store that fails or stalls is skipped for a few seconds: the
 * platform answers, never an older copy.
 */
export function createKeptReads(options: KeptReadsOptions): KeptReads {
  const { store, clock, maxAgeMs } = options;
  const bypassMs = options.bypassMs ?? 5_000;
  const access = new LedgerAccess(store, () => randomToken(8));
  const ledger = new KeptLedger({ access, clock, maxAgeMs, onReconciled: options.onTransactionsReconciled });
  const sync = new KeptSync(store, access, ledger);
  const changes = new WebhookChanges(store, clock);
  let skipUntil = 0;
  const { readThrough, accounts, account } = createKeptAnswers({
    store,
    clock,
    maxAgeMs,
    onLookup: options.onLookup,
    onAccountsReconciled: options.onAccountsReconciled,
    onKeepFailure(error) {
      skipUntil = clock() + bypassMs;
      options.onStoreFailure?.(error);
    },
  });

  /**
   * Through the store unless it is being skipped, or an instance of an earlier version shares it
   * (then the platform answers); a store failure (or a ledger that will not hold still) falls back.
   */
  async function guarded<T>(kept: (trust: KeptDataTrust) => Promise<T>, fallback: () => Promise<T>): Promise<T> {
    if (clock() < skipUntil) {
      options.onLookup?.('bypass');
      return fallback();
    }
    try {
      const trust = await store.trust();
      if (trust.mixed) {
        options.onLookup?.('bypass');
        return await fallback();
      }
      return await kept(trust);
    } catch (error) {
      if (error instanceof LedgerBusyError) return fallback();
      if (!(error instanceof StoreUnavailableError)) throw error;
      skipUntil = clock() + bypassMs;
      options.onStoreFailure?.(error);
      options.onLookup?.('bypass');
      return fallback();
    }
  }

  return {
    forUser(userId, platform) {
      return {
        me: () =>
          guarded(
            (trust) => readThrough(trust, userId, FIELD.me, TOPIC.me, () => platform().getMe()),
            () => platform().getMe(),
          ),
        accounts: () =>
          guarded(
            (trust) => accounts(trust, userId, platform()),
            () => platform().listAccounts(),
          ),
        account: (accountId) =>
          guarded(
            (trust) => account(trust, userId, platform(), accountId),
            () => platform().getAccount(accountId),
          ),
        transactions: (query) =>
          guarded<PageAnswer | undefined>(
            (trust) => ledger.page(userId, platform(), query, trust),
            async () => undefined,
          ),
        transactionsByIds: (ids) =>
          guarded(
            (trust) => ledger.byIds(userId, platform(), ids, trust),
            () => platform().getTransactionsByIds([...ids]),
          ),
        sync: (cursor, count, start) => sync.sync(userId, platform(), cursor, count, start),
      };
    },
    async accountRevoked(userId, accountId) {
      await changes.accountRemoved(userId, accountId);
    },
    forget: (userId) => store.deleteUser(userId),
    async noteRefresh(userId, refresh) {
      const snap = await store.read(userId, [FIELD.refresh], [TOPIC.refresh]);
      await store.apply(userId, snap, { put: [[FIELD.refresh, JSON.stringify(refresh)]] });
    },
    async openRefresh(userId) {
      const kept = (await store.read(userId, [FIELD.refresh], [TOPIC.refresh])).values.get(FIELD.refresh);
      return kept && clock() - kept.writtenAt < maxAgeMs ? (JSON.parse(kept.value) as RefreshNote) : undefined;
    },
  };
}
