import { sha256Hex } from '@open-finance-gateway/common/ids';

/**
 * What the user-data store keeps for a user: the platform's own answers, as it gave them (JSON
 * text), for `GET /v1/me`, the account list, one account, and one upstream page of settled
 * transactions per query (one account or all, `start`, `end`, the platform's cursor). Pending
 * transactions are not kept: they have no ids and no webhook announces their changes.
 */
export type UserDataEntry =
  | { kind: 'me' }
  | { kind: 'accounts' }
  | { kind: 'account'; accountId: string }
  | { kind: 'transactions'; accountId?: string; start?: string; end?: string; cursor: string | null }
  /** The gateway's own note of a refresh it asked for, until the platform's first webhook answers it. */
  | { kind: 'refresh' };

/**
 * What the platform said changed, and so what can no longer be answered from the store:
 * - `account`: that account and the account list (ACCOUNT webhooks, a revoked account);
 * - `transactions`: that account's pages and every all-accounts page (TRANSACTION webhooks).
 * Dropped, not merged: a new or removed row moves every later row to another page and cursor,
 * and an updated row may change its enrichment, so the pages are read again.
 */
export type UserDataChange = { kind: 'account'; accountId: string } | { kind: 'transactions'; accountId: string };

/**
 * An entry's answer: its value when kept and younger than the maximum age, and in any case the
 * stamp (the user's epoch and the generation of the entry's topic) a write-back must present.
 */
export interface Lookup {
  value: string | undefined;
  stamp: string;
  /**
   * When the stamp was taken, before the platform call: a kept answer counts its age from here,
   * so an answer that took long to arrive never claims to be fresher than it is.
   */
  at: number;
}

/** Why a write-back was not kept: a change since its stamp (`stale`), or it alone is over the user's cap. */
export type WriteOutcome = 'kept' | 'stale' | 'too-large';

export interface UserDataStore {
  /** The entry, if kept and fresh; and the stamp a write of this entry must present. */
  read(userId: string, entry: UserDataEntry): Promise<Lookup>;
  /**
   * Keeps `value` only if nothing changed since `since` was read (compare-and-set): a platform read
   * that started before an invalidation never writes its older answer back after it.
   */
  write(userId: string, entry: UserDataEntry, value: string, since: Omit<Lookup, 'value'>): Promise<WriteOutcome>;
  /** Bumps the topics' generations and drops their entries (before a webhook is acknowledged). */
  change(userId: string, changes: readonly UserDataChange[]): Promise<void>;
  /** Everything kept for the user, generations included: a read in flight cannot write back. */
  deleteUser(userId: string): Promise<void>;
}

/** What every implementation is told of, for the metrics. */
export interface UserDataStoreEvents {
  /** Users' whole stores dropped: `budget` (the store's), `user-cap` (the user's entries were over it). */
  onEviction?: (reason: 'budget' | 'user-cap', users: number) => void;
  /** The bytes one user's entries take after a write (no user label anywhere). */
  onUserBytes?: (bytes: number) => void;
}

export interface UserDataLimits {
  /** Past this an entry is a miss: the bound on data whose change event never arrived. */
  maxAgeMs: number;
  /** A user's entries together; past it their other entries are dropped to keep the new one. */
  userMaxBytes: number;
  /** All users' entries together; past it the least recently written users are dropped whole. */
  budgetBytes: number;
}

/** A short digest of an identifier, so keys and field names carry no account ids or dates. */
const digest = (value: string) => sha256Hex(value).slice(0, 16);

/**
 * An entry's topic (what one generation counts changes of) and its name within the topic. The
 * user's profile has none of its own: only the end of access (deleting the user) changes it.
 */
export function topicOf(entry: UserDataEntry): { topic: string; name: string } {
  switch (entry.kind) {
    case 'me':
      return { topic: 'me', name: '' };
    case 'accounts':
      return { topic: 'al', name: '' };
    case 'refresh':
      return { topic: 'rf', name: '' };
    case 'account':
      return { topic: `a:${digest(entry.accountId)}`, name: '' };
    case 'transactions':
      return {
        topic: entry.accountId === undefined ? 'ta' : `t:${digest(entry.accountId)}`,
        name: digest(JSON.stringify([entry.start ?? null, entry.end ?? null, entry.cursor])),
      };
  }
}

/** The topics a change makes stale; any change is the platform's answer to a running refresh. */
export function topicsOf(change: UserDataChange): string[] {
  return change.kind === 'account'
    ? [`a:${digest(change.accountId)}`, 'al', 'rf']
    : [`t:${digest(change.accountId)}`, 'ta', 'rf'];
}

/** The entry's field: `<topic>|<name>`, so a topic's entries share a prefix. */
export const fieldOf = (entry: UserDataEntry) => {
  const { topic, name } = topicOf(entry);
  return `${topic}|${name}`;
};
