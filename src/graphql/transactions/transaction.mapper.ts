import { parseInstant } from '../../lib/instant.js';
import type { PlatformPendingTransaction, PlatformTransaction } from '../../upstream/platform-types.js';
import { TransactionDirection } from '../enrichment/enrichment.type.js';
import type { PendingTransaction, Transaction } from './transaction.type.js';

function direction(amount: number): TransactionDirection {
  return amount < 0 ? TransactionDirection.DEBIT : TransactionDirection.CREDIT;
}

export function toTransaction(row: PlatformTransaction): Transaction {
  return {
    id: row._id,
    accountId: row._account,
    bankId: row._connection,
    connectionId: row._connection,
    date: new Date(row.date),
    description: row.description,
    amount: row.amount,
    direction: direction(row.amount),
    balance: row.balance,
    type: row.type,
    particulars: row.meta?.particulars,
    code: row.meta?.code,
    reference: row.meta?.reference,
    otherAccount: row.meta?.other_account,
    cardSuffix: row.meta?.card_suffix,
  };
}

export function toPendingTransaction(row: PlatformPendingTransaction): PendingTransaction {
  return {
    accountId: row._account,
    bankId: row._connection,
    connectionId: row._connection,
    date: new Date(row.date),
    description: row.description,
    amount: row.amount,
    direction: direction(row.amount),
    type: row.type,
    updatedAt: parseInstant(row.updated_at),
  };
}
