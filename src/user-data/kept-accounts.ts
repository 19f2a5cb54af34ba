import type { KeptAccount } from './kept-platform.js';
import { FIELD, TOPIC, type Kept, type Mutation } from './user-data-store.js';

/** An account change a reconciliation found, as the ACCOUNT webhook that would have announced it. */
export interface AccountChange {
  code: 'CREATE' | 'UPDATE' | 'DELETE';
  accountId: string;
  /** UPDATE: the top-level fields that differ. */
  updatedFields: string[];
  /** The account as it is now; undefined once deleted. */
  account: KeptAccount | undefined;
}

/** What differs between the kept list and the platform's: created, updated (with the fields) and deleted accounts. */
export function accountChanges(kept: readonly KeptAccount[], fresh: readonly KeptAccount[]): AccountChange[] {
  const before = new Map(kept.map((account) => [account._id, account]));
  const changes: AccountChange[] = [];
  for (const account of fresh) {
    const old = before.get(account._id);
    before.delete(account._id);
    if (!old) {
      changes.push({ code: 'CREATE', accountId: account._id, updatedFields: [], account });
      continue;
    }
    const fields = [...new Set([...Object.keys(old), ...Object.keys(account)])].filter(
      (field) =>
        JSON.stringify((old as unknown as Record<string, unknown>)[field]) !==
        JSON.stringify((account as unknown as Record<string, unknown>)[field]),
    );
    if (fields.length > 0) changes.push({ code: 'UPDATE', accountId: account._id, updatedFields: fields, account });
  }
  for (const id of before.keys())
    changes.push({ code: 'DELETE', accountId: id, updatedFields: [], account: undefined });
  return changes;
}

/**
 * The kept list with one account replaced, added (a new one) or taken out (undefined: gone),
 * written back with its original time: a patch says nothing of the other accounts' age.
 */
export function patchedList(kept: Kept, accountId: string, account: KeptAccount | undefined): Mutation['put'] {
  const list = JSON.parse(kept.value) as KeptAccount[];
  const index = list.findIndex((row) => row._id === accountId);
  if (account && index >= 0) list[index] = account;
  else if (account) list.push(account);
  else if (index >= 0) list.splice(index, 1);
  else return [];
  return [[FIELD.accounts, JSON.stringify(list), kept.writtenAt]];
}

/** The topics one account's change makes stale for any version: the account, the list, a running refresh. */
export const accountTopics = (accountId: string) => [TOPIC.account(accountId), TOPIC.accounts, TOPIC.refresh];

/** The topics one account's transactions' change makes stale: its pages, every all-accounts page, a running refresh. */
export const transactionTopics = (accountId: string) => [TOPIC.accountPages(accountId), TOPIC.ledger, TOPIC.refresh];
