import { parseInstant } from '../../lib/instant.js';
import type { PlatformPendingTransaction, PlatformTransaction } from '../../upstream/platform-types.js';
import { TransactionDirection } from '../enrichment/enrichment.type.js';
import type { SettledEnrichment, SettlingRow } from './row-enrichment.js';
import type { PendingTransaction, Transaction } from './transaction.type.js';

function direction(amount: number): TransactionDirection {
  return amount < 0 ? TransactionDirection.DEBIT : TransactionDirection.CREDIT;
}

/**
 * A platform row seen as a `Transaction`: each field read from the row when the query asks for it.
 * A page of 100 rows whose query reads four fields built 100 objects of fifteen fields and 100
 * dates; now it builds 100 of one. The getters are the class's (see LazyContext for why never
 * accessors defined on each object); graphql-js's default resolver reads them like properties.
 */
class TransactionRow implements Transaction, SettlingRow {
  /** Set when the page asks for every row's enrichment at once (row-enrichment.ts). */
  settledEnrichment: SettledEnrichment | undefined = undefined;
  constructor(private readonly row: PlatformTransaction) {}
  get id(): string {
    return this.row._id;
  }
  get accountId(): string {
    return this.row._account;
  }
  get bankId(): string {
    return this.row._connection;
  }
  get connectionId(): string {
    return this.row._connection;
  }
  get date(): Date {
    return new Date(this.row.date);
  }
  get description(): string {
    return this.row.description;
  }
  get amount(): number {
    return this.row.amount;
  }
  get direction(): TransactionDirection {
    return direction(this.row.amount);
  }
  get balance(): number | undefined {
    return this.row.balance;
  }
  get type(): string {
    return this.row.type;
  }
  get particulars(): string | undefined {
    return this.row.meta?.particulars;
  }
  get code(): string | undefined {
    return this.row.meta?.code;
  }
  get reference(): string | undefined {
    return this.row.meta?.reference;
  }
  get otherAccount(): string | undefined {
    return this.row.meta?.other_account;
  }
  get cardSuffix(): string | undefined {
    return this.row.meta?.card_suffix;
  }
}

export function toTransaction(row: PlatformTransaction): Transaction & SettlingRow {
  return new TransactionRow(row);
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
