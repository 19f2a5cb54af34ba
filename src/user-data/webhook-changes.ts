import type { UserDataChange, UserDataStore } from './user-data-store.js';

/** What a webhook makes stale: named entries, everything kept for the user, or nothing. */
export type WebhookChange = readonly UserDataChange[] | 'everything' | undefined;

/**
 * The one place that says what each platform webhook changes in the user-data store:
 * - ACCOUNT CREATE, UPDATE (whatever `updated_fields` says: a field the gateway does not show
 *   today may be shown tomorrow) and DELETE: that account and the account list; DELETE also its
 *   transactions;
 * - TRANSACTION INITIAL_UPDATE, DEFAULT_UPDATE and DELETE: that account's pages and every
 *   all-accounts page (dropped and read again, not merged: see UserDataChange);
 * - TOKEN DELETE: everything (the user's other data follows when their last session ends);
 * - WEBHOOK_CANCELLED of ACCOUNT, TRANSACTION or TOKEN: everything, as changes will no longer be
 *   announced (until the webhook is registered again, only the maximum age bounds what is kept).
 * An ACCOUNT or TRANSACTION webhook that names no account drops everything: correctness first.
 * Other types (payments, transfers, income) change nothing kept.
 */
export function webhookChange(type: string, code: string, payload: Record<string, unknown>): WebhookChange {
  if (type !== 'ACCOUNT' && type !== 'TRANSACTION' && type !== 'TOKEN') return undefined;
  if (type === 'TOKEN' || code === 'WEBHOOK_CANCELLED') return 'everything';
  const accountId = payload.item_id;
  if (typeof accountId !== 'string' || accountId.length === 0) return 'everything';
  if (type === 'TRANSACTION') return [{ kind: 'transactions', accountId }];
  const account: UserDataChange = { kind: 'account', accountId };
  return code === 'DELETE' ? [account, { kind: 'transactions', accountId }] : [account];
}

/**
 * Applies a verified webhook's change to the store; resolves once it is stored (the webhook may
 * then be acknowledged). Returns the cause to count (`<type>_<code>`), or undefined for none.
 */
export async function applyWebhookChange(
  store: UserDataStore,
  userId: string,
  type: string,
  code: string,
  payload: Record<string, unknown>,
): Promise<string | undefined> {
  const change = webhookChange(type, code, payload);
  if (change === undefined) return undefined;
  if (change === 'everything') await store.deleteUser(userId);
  else await store.change(userId, change);
  return `${type}_${code}`;
}
