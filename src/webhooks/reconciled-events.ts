import type { Clock } from '@open-finance-gateway/common/clock';
import type { Logger } from '@open-finance-gateway/common/logger';
import type { EventLog, UserEvent } from '../event-log/event-log.js';
import { GONE, markOf } from '../user-data/content-marks.js';
import type { AccountChange } from '../user-data/kept-accounts.js';
import type { ReconciledTransactions } from '../user-data/kept-ledger.js';
import type { KeptRow, LedgerChange } from '../user-data/ledger-rows.js';

/**
 * What a reconciliation with the platform found (a change whose webhook never arrived), published
 * as the webhook that would have announced it, marked `reconciled`, and judged by content like one:
 * subscribers hear of it once, on every transport, and transaction syncs push it.
 */
export function createReconciledEvents(options: {
  eventLog: EventLog;
  clock: Clock;
  logger: Logger;
  onPublished?: (userId: string, type: string, code: string) => void;
}) {
  const event = (
    type: string,
    code: string,
    payload: Record<string, unknown>,
    sync?: UserEvent['sync'],
  ): UserEvent => ({
    type,
    code,
    payload,
    receivedAt: new Date(options.clock()).toISOString(),
    reconciled: true,
    ...(sync ? { sync } : {}),
  });
  // The change is already applied: a failure to announce it is logged, and syncs still find it in the change log.
  const publish = async (userId: string, made: UserEvent, marks: Parameters<EventLog['publishChange']>[2]) => {
    try {
      if (await options.eventLog.publishChange(userId, made, marks))
        options.onPublished?.(userId, made.type, made.code);
    } catch (error) {
      options.logger.warn(
        {
          userId,
          type: made.type,
          code: made.code,
          err: { message: error instanceof Error ? error.message : String(error) },
        },
        'a change found by reconciliation could not be published',
      );
    }
  };

  async function accounts(userId: string, changes: readonly AccountChange[]): Promise<void> {
    for (const change of changes) {
      const payload = {
        item_id: change.accountId,
        ...(change.code === 'UPDATE' ? { updated_fields: change.updatedFields } : {}),
      };
      await publish(userId, event('ACCOUNT', change.code, payload), [
        markOf('account', change.accountId, change.account ?? GONE),
      ]);
    }
  }

  const transactions: ReconciledTransactions = async (userId, changes, rows, sync) => {
    const byAccount = new Map<string, LedgerChange[]>();
    for (const change of changes) byAccount.set(change.accountId, [...(byAccount.get(change.accountId) ?? []), change]);
    let stretch = sync; // the log stretch travels once, with the first event
    for (const [accountId, own] of byAccount) {
      const changed = own.filter((change) => change.kind !== 'removed').map((change) => change.id);
      const removed = own.filter((change) => change.kind === 'removed').map((change) => change.id);
      const contentOf = (id: string): KeptRow | typeof GONE => rows.get(id) ?? GONE;
      if (changed.length > 0) {
        const payload = { item_id: accountId, new_transactions: changed.length, new_transaction_ids: changed };
        await publish(
          userId,
          event('TRANSACTION', 'DEFAULT_UPDATE', payload, stretch),
          changed.map((id) => markOf('transaction', id, contentOf(id))),
        );
        stretch = undefined;
      }
      if (removed.length > 0) {
        const payload = { item_id: accountId, removed_transactions: removed };
        await publish(
          userId,
          event('TRANSACTION', 'DELETE', payload, stretch),
          removed.map((id) => markOf('transaction', id, GONE)),
        );
        stretch = undefined;
      }
    }
  };

  return { accounts, transactions };
}
