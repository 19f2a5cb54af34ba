import { sha256Hex } from '@open-finance-gateway/common/ids';

/**
 * What the user-data store keeps for a user, as fields of one record, each named `<topic>|<name>`:
 * - the platform's answers as it gave them (JSON text), read through and kept: `GET /v1/me`
 *   (`me|`), the account list (`al|`), one account (`a:<digest>|`), and the gateway's note of a
 *   refresh it asked for (`rf|`);
 * - the ledger of settled transactions (topic `ta`): its meta (`ta|LM`), its blocks of rows
 *   (`ta|L<n>`) and the change log that sync reads (`ta|C<position>`).
 * A topic's generation counts its changes: a read takes the generations (and the user's epoch)
 * before it calls the platform, and writes back only if they have not moved (compare-and-set).
 * Field names carry digests, never an account id, a date or a month.
 */
export interface Kept {
  value: string;
  /** When it was written (ms): for an answer read through, when its platform read began. */
  writtenAt: number;
}

/** Fields as read, and the stamp a mutation based on them must present. */
export interface Snapshot {
  values: ReadonlyMap<string, Kept>;
  /** The user's epoch and the generations of the topics read. */
  stamp: string;
  /** When the snapshot was taken, before any platform call: answers kept from it count their age from here. */
  at: number;
}

export type Since = Pick<Snapshot, 'stamp' | 'at'>;

/** One atomic change to a user's record, applied only if the stamp still holds. */
export interface Mutation {
  /** Fields written (with their write time, `since.at` unless given) or deleted (null). */
  put?: ReadonlyArray<readonly [field: string, value: string | null, writtenAt?: number]>;
  /**
   * Topics changed: each generation moves on (a read that started before writes nothing back),
   * and answers of the topic an earlier version kept (its transaction pages) are dropped; the
   * ledger's own fields stay unless written.
   */
  bump?: readonly string[];
  /** Topics whose every field goes (generation moved on too). */
  drop?: readonly string[];
  /** A batch of ledger changes, appended to the change log at its next position. */
  log?: string;
  /** The ledger's block ids in order (the read of a page fetches its first blocks in the same round trip). */
  order?: string;
  /**
   * Past the user's cap: `make-room` drops the user's other fields (a read-through answer),
   * `refuse` answers `over-cap` and changes nothing (the ledger trims its oldest rows and retries).
   */
  overCap?: 'make-room' | 'refuse';
  /** Before a webhook's acknowledgement: resolves only once replicas hold it (REDIS_WAIT_REPLICAS). */
  durable?: boolean;
}

export type ApplyOutcome =
  | { outcome: 'kept'; /** The change log position of `log`, when one was appended. */ position?: number }
  | { outcome: 'stale' | 'too-large' | 'over-cap' };

export interface UserDataStore {
  /**
   * The fields asked for (any age: the caller judges it), and the stamp of `topics`. With
   * `ledgerHead`, also that many of the ledger's first blocks, under their field names.
   */
  read(userId: string, fields: readonly string[], topics: readonly string[], ledgerHead?: number): Promise<Snapshot>;
  /** Applies the mutation if nothing changed since `since` (compare-and-set on its topics). */
  apply(userId: string, since: Since, mutation: Mutation): Promise<ApplyOutcome>;
  /**
   * Bumps and drops topics with no compare-and-set: the fallback when a change cannot be applied
   * in place (its platform read failed). Before a webhook is acknowledged.
   */
  drop(userId: string, topics: readonly string[]): Promise<void>;
  /**
   * Change log entries after `after`, oldest first, at most `limit`; `head` is the newest
   * position, `oldest` the oldest still kept (older positions are gone: expired cursors).
   */
  readLog(
    userId: string,
    after: number,
    limit: number,
  ): Promise<{ entries: Array<{ position: number; value: string }>; head: number; oldest: number }>;
  /** Everything kept for the user, generations included: a read in flight cannot write back. */
  deleteUser(userId: string): Promise<void>;
  /**
   * Whether kept data may be served now, and what is kept from before when (see redis-shape-census.ts):
   * always in memory (one instance, one version).
   */
  trust(): Promise<KeptDataTrust>;
  /**
   * When the oldest answer still kept for the user (younger than the maximum age and readable)
   * was written (ms), or undefined: what the embedded sandbox's console shows. Reads only: it
   * creates no user and changes no one's recency.
   */
  oldestKept(userId: string): Promise<number | undefined>;
}

/**
 * Whether every instance sharing the store keeps it current (`mixed`: an instance of an earlier
 * version is live, so kept data is not served), and the instant before which what is kept must be
 * reconciled before it is served (the end of the last such period; 0 when there was none).
 */
export interface KeptDataTrust {
  mixed: boolean;
  since: number;
}

/** What every implementation is told of, for the metrics. */
export interface UserDataStoreEvents {
  /** Users' whole stores dropped: `budget` (the store's), `user-cap` (the user's answers were over it). */
  onEviction?: (reason: 'budget' | 'user-cap', users: number) => void;
  /** The bytes one user's fields take after a write (no user label anywhere). */
  onUserBytes?: (bytes: number) => void;
  /**
   * A user's whole store was dropped because an instance that does not keep it current (an earlier
   * version) acknowledged a webhook for them.
   */
  onForeignAcknowledgement?: () => void;
}

export interface UserDataLimits {
  /** Past this, an answer is read again (and the ledger reconciled) before it is served. */
  maxAgeMs: number;
  /** A user's record is deleted this long after its last write (USER_DATA_MAX_AGE_SECONDS twice). */
  retentionMs: number;
  /** A user's fields together; past it their other fields are dropped, or the ledger trimmed. */
  userMaxBytes: number;
  /** All users' fields together; past it the least recently written users are dropped whole. */
  budgetBytes: number;
}

/** Change log batches kept per user: a sync cursor older than this many ledger changes syncs from the start. */
export const LOG_KEPT = 512;

/** A short digest of an identifier, so field names carry no account ids. */
export const digest = (value: string) => sha256Hex(value).slice(0, 16);

export const TOPIC = {
  me: 'me',
  accounts: 'al',
  refresh: 'rf',
  ledger: 'ta',
  account: (accountId: string) => `a:${digest(accountId)}`,
  /** An account's transaction pages, which an earlier version keeps. */
  accountPages: (accountId: string) => `t:${digest(accountId)}`,
} as const;

export const FIELD = {
  me: `${TOPIC.me}|`,
  accounts: `${TOPIC.accounts}|`,
  refresh: `${TOPIC.refresh}|`,
  account: (accountId: string) => `${TOPIC.account(accountId)}|`,
  ledgerMeta: `${TOPIC.ledger}|LM`,
  block: (id: number) => `${TOPIC.ledger}|L${id}`,
  log: (position: number) => `${TOPIC.ledger}|C${position}`,
} as const;

/** Whether a field is one of the ledger's own (kept when its topic is bumped). */
export function isLedgerField(field: string): boolean {
  return field.startsWith(`${TOPIC.ledger}|L`) || field.startsWith(`${TOPIC.ledger}|C`);
}

/** Whether a field is an answer the console counts (not a note, a block or a log entry). */
export function isAnswerField(field: string): boolean {
  return field !== FIELD.refresh && (!isLedgerField(field) || field === FIELD.ledgerMeta);
}

/** The topic a field belongs to. */
export const topicOfField = (field: string) => field.slice(0, field.indexOf('|'));
