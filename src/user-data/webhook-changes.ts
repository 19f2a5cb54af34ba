import type { Clock } from '@open-finance-gateway/common/clock';
import { randomToken } from '@open-finance-gateway/common/ids';
import { GONE, markOf, unknownMark, type ContentMark } from './content-marks.js';
import { accountTopics, patchedList, transactionTopics } from './kept-accounts.js';
import type { PlatformReads } from './kept-platform.js';
import { LedgerAccess } from './ledger-access.js';
import { FIELD, TOPIC, type Kept, type Mutation, type UserDataStore } from './user-data-store.js';
import { changeKept, FAILED, readOr, type ChangeDone, type ChangePlan, type SyncStretch } from './webhook-change.js';

/** What applying a webhook found, for the dispatcher. */
export interface WebhookOutcome {
  /**
   * What subscribers would receive of each object the webhook names, re-read: the event is
   * published only if one differs from what they were last given (an object that could not be
   * read has an unknown content: published). Undefined: not judged by content (the body is:
   * payments, transfers, income, tokens).
   */
  marks?: ContentMark[];
  /** The change log stretch the ledger's change went to, which sync subscriptions push. */
  sync?: SyncStretch;
  /** `<type>_<code>` when the webhook changed the store (for the metrics). */
  cause?: string;
}

/**
 * Whether a webhook names a change without carrying its new state, so that a repeat of its bytes
 * may be a new change: ACCOUNT CREATE, UPDATE and DELETE (only the account id), and TRANSACTION
 * INITIAL_UPDATE and DEFAULT_UPDATE (the ids of new *or updated* rows: a row updated twice is
 * announced twice with the same body). TRANSACTION DELETE carries its state (the ids are gone) but
 * is judged the same way, at no cost. Payment and transfer events carry their status, income
 * events are passed on as sent, and TOKEN DELETE happens once: their body is their content.
 */
export function judgedByContent(type: string, code: string, payload: Record<string, unknown>): boolean {
  if (typeof payload.item_id !== 'string' || payload.item_id === '') return false;
  if (type === 'ACCOUNT') return code === 'CREATE' || code === 'UPDATE' || code === 'DELETE';
  if (type !== 'TRANSACTION') return false;
  const ids = code === 'DELETE' ? payload.removed_transactions : payload.new_transaction_ids;
  return (code === 'DELETE' || code === 'INITIAL_UPDATE' || code === 'DEFAULT_UPDATE') && stringList(ids).length > 0;
}

/**
 * The one place that says what each platform webhook changes in the user-data store, before it is
 * acknowledged (so no read after the 200, on any instance, is older than the webhook):
 * - ACCOUNT CREATE and UPDATE (whatever `updated_fields` says): the account is read again (one
 *   platform call) and replaced in the kept list and as itself; DELETE takes it out, with its
 *   transactions (no call);
 * - TRANSACTION INITIAL_UPDATE and DEFAULT_UPDATE: only the rows named are read (one call, by id)
 *   and inserted or replaced in the ledger, in order; DELETE removes the rows named (no call);
 * - TOKEN DELETE, and WEBHOOK_CANCELLED of ACCOUNT, TRANSACTION or TOKEN: everything (changes
 *   will no longer be announced); an ACCOUNT or TRANSACTION webhook naming no account: everything.
 * A change whose read fails (the platform is down or slow, the user has no token) drops the
 * account it names, or marks the ledger stale so that the next read reconciles it (its epoch and
 * change log stay: no sync cursor expires); one that keeps going stale drops what it names. Other
 * types (payments, transfers, income) change nothing kept. Each change also moves on the
 * generations an earlier version's reads check, and drops that version's transaction pages.
 */
export class WebhookChanges {
  private readonly access: LedgerAccess | undefined;

  constructor(
    private readonly store: UserDataStore | undefined,
    private readonly clock: Clock = Date.now,
  ) {
    this.access = store && new LedgerAccess(store, () => randomToken(8));
  }

  async apply(
    userId: string,
    type: string,
    code: string,
    payload: Record<string, unknown>,
    platform: PlatformReads | undefined,
  ): Promise<WebhookOutcome> {
    if (type !== 'ACCOUNT' && type !== 'TRANSACTION' && type !== 'TOKEN') return {};
    const cause = `${type}_${code}`;
    const accountId = payload.item_id;
    if (type === 'TOKEN' || code === 'WEBHOOK_CANCELLED' || typeof accountId !== 'string' || accountId === '') {
      await this.store?.deleteUser(userId);
      return this.store ? { cause } : {};
    }
    const judged = judgedByContent(type, code, payload);
    const outcome =
      type === 'ACCOUNT'
        ? await this.account(userId, accountId, code, platform)
        : await this.transactions(userId, accountId, code, payload, platform);
    return { ...outcome, ...(judged ? {} : { marks: undefined }), ...(this.store ? { cause } : {}) };
  }

  /**
   * The app no longer reaches the account (deleted at the platform, or revoked in the app): it, and
   * its rows, go. Returns the change log stretch its rows' removal went to.
   */
  async accountRemoved(userId: string, accountId: string): Promise<SyncStretch | undefined> {
    const done = await this.change(userId, {
      topics: [...accountTopics(accountId), TOPIC.accountPages(accountId)],
      ledger: true,
      edit: (_none, ledger, kept) => {
        ledger?.removeAccount(accountId);
        return [...listWithout(kept, accountId), [FIELD.account(accountId), null]];
      },
    });
    return done.sync;
  }

  private async account(
    userId: string,
    accountId: string,
    code: string,
    platform: PlatformReads | undefined,
  ): Promise<WebhookOutcome> {
    if (code === 'DELETE') {
      const sync = await this.accountRemoved(userId, accountId);
      return { marks: [markOf('account', accountId, GONE)], ...(sync ? { sync } : {}) };
    }
    const topics = accountTopics(accountId);
    const { value: account } = await this.change(userId, {
      topics,
      ledger: false,
      read: () => reachable(platform).getAccount(accountId),
      edit: (read, _ledger, kept) => [
        ...(kept.get(FIELD.accounts) ? (patchedList(kept.get(FIELD.accounts)!, accountId, read) ?? []) : []),
        [FIELD.account(accountId), read === undefined ? null : JSON.stringify(read)],
      ],
    });
    if (account === FAILED) {
      await this.store?.drop(userId, topics);
      return { marks: [unknownMark('account', accountId)] };
    }
    return { marks: [markOf('account', accountId, account ?? GONE)] };
  }

  private async transactions(
    userId: string,
    accountId: string,
    code: string,
    payload: Record<string, unknown>,
    platform: PlatformReads | undefined,
  ): Promise<WebhookOutcome> {
    const topics = transactionTopics(accountId);
    if (code === 'DELETE') {
      const ids = stringList(payload.removed_transactions);
      const { sync } = await this.change(userId, {
        topics,
        ledger: true,
        edit: (_none, ledger) => ledger?.remove(ids),
      });
      return { marks: ids.map((id) => markOf('transaction', id, GONE)), ...(sync ? { sync } : {}) };
    }
    const ids = stringList(payload.new_transaction_ids);
    const { value: rows, sync } = await this.change(userId, {
      topics,
      ledger: true,
      read: async () => (ids.length === 0 ? [] : await reachable(platform).getTransactionsByIds(ids)),
      edit: (read, ledger) => ledger?.upsert(read),
      // The rows named are not known: the ledger is marked stale (the next read reconciles it),
      // keeping its epoch and change log, so no app's sync cursor expires over one failed read.
      unread: (ledger) => {
        if (ledger) ledger.meta.verifiedAt = 0;
      },
    });
    if (rows === FAILED) return { marks: ids.map((id) => unknownMark('transaction', id)) };
    const marks = ids.map((id) => markOf('transaction', id, rows.find((row) => row._id === id) ?? GONE));
    return { marks, ...(sync ? { sync } : {}) };
  }

  /** A change under compare-and-set (see changeKept); with the store off, only its read. */
  private async change<T>(userId: string, plan: ChangePlan<T>): Promise<ChangeDone<T>> {
    const { store, access, clock } = this;
    if (!store || !access) return { value: plan.read ? await readOr(plan.read) : (undefined as T) };
    return changeKept({ store, access, clock }, userId, plan);
  }
}

/** The user's platform reads, or a failure when they have none (no bank connection). */
function reachable(platform: PlatformReads | undefined): PlatformReads {
  if (!platform) throw new Error('the user has no bank connection');
  return platform;
}

function listWithout(kept: ReadonlyMap<string, Kept>, accountId: string): NonNullable<Mutation['put']> {
  const list = kept.get(FIELD.accounts);
  return list ? (patchedList(list, accountId, undefined) ?? []) : [];
}

function stringList(value: unknown): string[] {
  return Array.isArray(value) ? value.filter((item): item is string => typeof item === 'string') : [];
}
