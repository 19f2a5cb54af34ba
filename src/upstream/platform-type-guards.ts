import type { PlatformAccount, PlatformPendingTransaction, PlatformTransaction } from './platform-types.js';

// The platform's typings have drifted before: check what the gateway relies on, tolerate the rest.
export function isAccount(value: unknown): value is PlatformAccount {
  const account = value as Partial<PlatformAccount> | undefined;
  return (
    typeof account?._id === 'string' && typeof account.name === 'string' && typeof account.connection?._id === 'string'
  );
}

export function isTransaction(value: unknown): value is PlatformTransaction {
  const row = value as Partial<PlatformTransaction> | undefined;
  return (
    typeof row?._id === 'string' &&
    typeof row.date === 'string' &&
    typeof row.amount === 'number' &&
    typeof row.description === 'string'
  );
}

export function isPaymentLike(value: unknown): value is { _id: string; status: string; amount: number } {
  const item = value as { _id?: unknown; status?: unknown; amount?: unknown } | undefined;
  return typeof item?._id === 'string' && typeof item.status === 'string' && typeof item.amount === 'number';
}

export function isPending(value: unknown): value is PlatformPendingTransaction {
  const row = value as Partial<PlatformPendingTransaction> | undefined;
  return (
    typeof row?._account === 'string' &&
    typeof row.date === 'string' &&
    typeof row.amount === 'number' &&
    typeof row.description === 'string'
  );
}

export function isWebhook(value: unknown): value is { _id: string; type?: string; state?: string } {
  return typeof (value as { _id?: unknown } | undefined)?._id === 'string';
}
