import type { Clock } from '@open-finance-gateway/common/clock';
import { StoreUnavailableError } from '../lib/store-unavailable.js';
import { accountChanges, type AccountChange } from './kept-accounts.js';
import type { KeptAccount, PlatformReads } from './kept-platform.js';
import { FIELD, TOPIC, type KeptDataTrust, type UserDataStore } from './user-data-store.js';

/** How one read went: answered by the store, read from the platform and kept, or the store skipped. */
export type LookupResult = 'hit' | 'miss' | 'bypass';

export interface KeptAnswersOptions {
  store: UserDataStore;
  clock: Clock;
  maxAgeMs: number;
  onLookup?: (result: LookupResult) => void;
  onAccountsReconciled?: (userId: string, changes: readonly AccountChange[]) => Promise<void>;
  /** Keeping an answer failed on the store (the answer is the platform's and right; only keeping it failed). */
  onKeepFailure(error: StoreUnavailableError): void;
}

/**
 * The platform's answers kept as they were given (`me`, the account list, one account): served
 * while younger than the maximum age (and read after what the store trusts), else read again and
 * kept under the stamp taken before the read. The account list, and a lone account, publish what
 * differs from the copy they replace: the ACCOUNT webhooks that never arrived.
 */
export function createKeptAnswers(options: KeptAnswersOptions) {
  const { store, clock, maxAgeMs } = options;
  /** Whether kept data written at `writtenAt` may be served as it is under `trust`. */
  const young = (trust: KeptDataTrust, writtenAt: number) => writtenAt >= trust.since && clock() - writtenAt < maxAgeMs;

  /** One field read through: kept and young, or read from the platform and kept under the stamp taken before. */
  async function readThrough<T>(
    trust: KeptDataTrust,
    userId: string,
    field: string,
    topic: string,
    fetch: () => Promise<T>,
  ): Promise<T> {
    const snap = await store.read(userId, [field], [topic]);
    const kept = snap.values.get(field);
    if (kept && young(trust, kept.writtenAt)) {
      options.onLookup?.('hit');
      return JSON.parse(kept.value) as T;
    }
    options.onLookup?.('miss');
    const value = await fetch();
    // Not kept: an absent answer (a 404), which the platform is asked again each time.
    if (value !== undefined) await keep(() => store.apply(userId, snap, { put: [[field, JSON.stringify(value)]] }));
    return value;
  }

  /** A write-back whose failure loses nothing: the answer is the platform's and right; only keeping it failed. */
  async function keep(write: () => Promise<unknown>): Promise<void> {
    try {
      await write();
    } catch (error) {
      if (!(error instanceof StoreUnavailableError)) throw error;
      options.onKeepFailure(error);
    }
  }

  /** The account list: kept, or read again (and, when one was kept, its differences published). */
  async function accounts(trust: KeptDataTrust, userId: string, platform: PlatformReads): Promise<KeptAccount[]> {
    const snap = await store.read(userId, [FIELD.accounts], [TOPIC.accounts]);
    const kept = snap.values.get(FIELD.accounts);
    if (kept && young(trust, kept.writtenAt)) {
      options.onLookup?.('hit');
      return JSON.parse(kept.value) as KeptAccount[];
    }
    options.onLookup?.('miss');
    const fresh = await platform.listAccounts();
    const changes = kept ? accountChanges(JSON.parse(kept.value) as KeptAccount[], fresh) : [];
    const changedTopics = changes.map((change) => TOPIC.account(change.accountId));
    let outcome: string | undefined;
    await keep(async () => {
      ({ outcome } = await store.apply(userId, snap, {
        put: [[FIELD.accounts, JSON.stringify(fresh)]],
        ...(changes.length > 0 ? { drop: changedTopics, bump: [TOPIC.refresh] } : {}),
      }));
    });
    if (outcome === 'kept' && changes.length > 0) await options.onAccountsReconciled?.(userId, changes);
    return fresh;
  }

  /** One account: from the kept list when there is one, else kept on its own; an old copy's differences are published. */
  async function account(trust: KeptDataTrust, userId: string, platform: PlatformReads, accountId: string) {
    const field = FIELD.account(accountId);
    const snap = await store.read(userId, [FIELD.accounts, field], [TOPIC.account(accountId)]);
    const list = snap.values.get(FIELD.accounts);
    if (list) {
      const fresh = young(trust, list.writtenAt);
      if (fresh) options.onLookup?.('hit');
      const all = fresh ? (JSON.parse(list.value) as KeptAccount[]) : await accounts(trust, userId, platform);
      return all.find((row) => row._id === accountId);
    }
    const kept = snap.values.get(field);
    if (kept && young(trust, kept.writtenAt)) {
      options.onLookup?.('hit');
      return JSON.parse(kept.value) as KeptAccount;
    }
    options.onLookup?.('miss');
    const fresh = await platform.getAccount(accountId);
    let outcome: string | undefined;
    await keep(async () => {
      ({ outcome } = await store.apply(userId, snap, {
        put: [[field, fresh === undefined ? null : JSON.stringify(fresh)]],
      }));
    });
    const changes = kept ? accountChanges([JSON.parse(kept.value) as KeptAccount], fresh ? [fresh] : []) : [];
    if (outcome === 'kept' && changes.length > 0) await options.onAccountsReconciled?.(userId, changes);
    return fresh;
  }

  return { readThrough, accounts, account };
}
