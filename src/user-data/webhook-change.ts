import type { Clock } from '@open-finance-gateway/common/clock';
import type { LedgerAccess } from './ledger-access.js';
import { LedgerMovedError } from './ledger-pages.js';
import type { Ledger } from './ledger.js';
import { FIELD, TOPIC, type ApplyOutcome, type Kept, type Mutation, type UserDataStore } from './user-data-store.js';

/** A platform read that could not be had (no token, the call failed or timed out). */
export const FAILED = Symbol('failed');

/** The change log stretch a ledger change went to, which sync subscriptions push. */
export interface SyncStretch {
  epoch: string;
  from: number;
  to: number;
}

/** One change a webhook makes to what is kept, under compare-and-set. */
export interface ChangePlan<T> {
  /** Topics whose generation moves on (and whose answers an earlier version kept are dropped). */
  topics: readonly string[];
  /** Whether the edit needs the ledger in hand. */
  ledger: boolean;
  /**
   * What the change reads of the platform. It is made after each snapshot, never before: a change
   * applied between the snapshot and the write makes the write stale, and it is read again, so an
   * older read never overwrites a newer change that was already acknowledged.
   */
  read?: () => Promise<T>;
  /** The fields to write, from what was read, the ledger (changed in place) and the kept fields. */
  edit(value: T, ledger: Ledger | undefined, kept: ReadonlyMap<string, Kept>): Mutation['put'] | void;
  /**
   * What stands for the change when the read failed, under the same compare-and-set (the ledger
   * marked stale, say). Absent: nothing is written, and the caller drops what the webhook names.
   */
  unread?(ledger: Ledger | undefined, kept: ReadonlyMap<string, Kept>): Mutation['put'] | void;
}

export interface ChangeDone<T> {
  /** What the read gave (the last one, when a race made the change read again), or FAILED. */
  value: T | typeof FAILED;
  sync?: SyncStretch;
}

/** Attempts at a change while other changes race it, before it falls back to dropping what it names. */
const ATTEMPTS = 6;

/**
 * A stale write reads the platform again only this soon after the change began: the platform
 * waits 5 s for the webhook's answer, and each read may take up to its own deadline (2.5 s).
 */
const REREAD_WITHIN_MS = 1_000;

/** The platform's answer, or FAILED when it could not be had. */
export async function readOr<T>(read: () => Promise<T>): Promise<T | typeof FAILED> {
  try {
    return await read();
  } catch {
    return FAILED;
  }
}

/**
 * Applies a webhook's change, before it is acknowledged: snapshot (the stamp), then the platform
 * read, then the write under that stamp; a write made stale by another change starts again from a
 * new snapshot. A read that fails (or is too late to be made again) is handed back as FAILED, and
 * `unread` written instead (without it, nothing: the caller drops what the webhook names). Only a
 * change that keeps going stale drops the topics it names and the ledger.
 */
export async function changeKept<T>(
  deps: { store: UserDataStore; access: LedgerAccess; clock: Clock },
  userId: string,
  plan: ChangePlan<T>,
): Promise<ChangeDone<T>> {
  const { store, access, clock } = deps;
  const started = clock();
  const accountFields = [
    FIELD.accounts,
    ...plan.topics.filter((topic) => topic.startsWith('a:')).map((topic) => `${topic}|`),
  ];
  const stamped = plan.ledger ? [...new Set([TOPIC.ledger, ...plan.topics])] : [...plan.topics];
  let value: T | typeof FAILED | undefined;
  for (let attempt = 0; attempt < ATTEMPTS; attempt += 1) {
    try {
      const at = await access.snapshot(userId, { topics: stamped, fields: accountFields, head: 0 });
      const whole = plan.ledger && at.meta ? await access.whole(userId, at) : undefined;
      if (!plan.read) value = undefined as T;
      else if (value === undefined || (value !== FAILED && clock() - started < REREAD_WITHIN_MS))
        value = await readOr(plan.read);
      else value = FAILED;
      if (value === FAILED && !plan.unread) return { value };
      const put =
        (value === FAILED ? plan.unread!(whole, at.snap.values) : plan.edit(value, whole, at.snap.values)) ?? [];
      const mutation: Mutation = { put, bump: plan.topics, durable: true };
      const done = whole
        ? await access.save(userId, at, whole, mutation)
        : await store.apply(userId, at.snap, mutation);
      if (done.outcome === 'kept') return { value, sync: whole && stretchOf(whole, done) };
      if (done.outcome !== 'stale') break;
    } catch (error) {
      if (!(error instanceof LedgerMovedError)) throw error;
    }
  }
  await store.drop(userId, [...plan.topics, TOPIC.ledger]);
  return { value: value ?? FAILED };
}

function stretchOf(ledger: Ledger, done: ApplyOutcome): SyncStretch | undefined {
  if (done.outcome !== 'kept' || done.position === undefined) return undefined;
  return { epoch: ledger.meta.epoch, from: done.position - 1, to: done.position };
}
