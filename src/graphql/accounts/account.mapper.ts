import { parseInstant } from '../../lib/instant.js';
import type { PlatformAccount } from '../../upstream/platform-types.js';
import { Account, AccountAttribute, AccountStatus, AccountType } from './account.type.js';

const TYPES = new Set<string>(Object.values(AccountType));
const ATTRIBUTES = new Set<string>(Object.values(AccountAttribute));

/** Platform account to schema account. Unknown enum values are tolerated, never fatal. */
export function toAccount(account: PlatformAccount, reconnectUrl: string): Account {
  const inactive = account.status === AccountStatus.INACTIVE;
  const bank = { id: account.connection._id, name: account.connection.name, logo: account.connection.logo };
  return {
    id: account._id,
    name: account.name,
    status: inactive ? AccountStatus.INACTIVE : AccountStatus.ACTIVE,
    needsReconnection: inactive,
    reconnectUrl: inactive ? reconnectUrl : undefined,
    formattedAccount: account.formatted_account,
    type: TYPES.has(account.type) ? (account.type as AccountType) : AccountType.OTHER,
    balance: account.balance && typeof account.balance.current === 'number' ? { ...account.balance } : undefined,
    bank,
    // The deprecated `connection` field: the same object under its old name (a plain property:
    // an own accessor per row would put every row in the old generation).
    connection: bank,
    attributes: (account.attributes ?? []).filter((attribute) => ATTRIBUTES.has(attribute)) as AccountAttribute[],
    holder: account.meta?.holder,
    refreshed: account.refreshed
      ? { balance: parseInstant(account.refreshed.balance), transactions: parseInstant(account.refreshed.transactions) }
      : undefined,
  };
}
