import type { SandboxAccount } from '../model/core-model.js';
import type { PaymentMeta } from '../model/payment-model.js';

/**
 * The platform's checks on `POST /v1/payments`, `/v1/payments/ird` and `/v1/transfers`, with its
 * 400 messages. The sandbox app's limits stand in for the limits an app agrees with the platform.
 */
export const SANDBOX_PAYMENT_LIMITS = { single: 10_000, daily: 20_000 };

/** Particulars, code and reference: what NZ bank statements carry, at most 12 characters. */
const PCR = /^[A-Za-z0-9 \-_]{0,12}$/;
/** `BB-bbbb-AAAAAAA-SS(S)`: bank, branch, account, suffix. */
export const NZ_ACCOUNT_NUMBER = /^\d{2}-\d{4}-\d{7}-\d{2,3}$/;
export const IRD_PAYEE = { name: 'Inland Revenue Department', account_number: '03-0049-0001100-27' };

export type Checked<T> = { ok: true; value: T } | { ok: false; message: string };

export interface PaymentRequest {
  from: SandboxAccount;
  to: { name: string; account_number: string };
  amount: number;
  meta: PaymentMeta;
}

const fail = (message: string): { ok: false; message: string } => ({ ok: false, message });

export function checkAmount(amount: unknown): Checked<number> {
  if (typeof amount !== 'number' || !Number.isFinite(amount) || amount <= 0)
    return fail('`amount` must be a positive number');
  if (Math.abs(amount * 100 - Math.round(amount * 100)) > 1e-6)
    return fail('`amount` may have at most 2 decimal places');
  return { ok: true, value: Math.round(amount * 100) / 100 };
}

function checkPcr(value: unknown, path: string): Checked<string | undefined> {
  if (value === undefined) return { ok: true, value: undefined };
  if (typeof value !== 'string' || !PCR.test(value)) return fail(`Invalid characters in \`${path}\``);
  return { ok: true, value: value === '' ? undefined : value };
}

function checkMeta(meta: unknown): Checked<PaymentMeta> {
  const given = (meta ?? {}) as { source?: Record<string, unknown>; destination?: Record<string, unknown> };
  if (typeof given !== 'object') return fail('`meta` must be an object');
  const source = given.source ?? {};
  const destination = given.destination ?? {};
  // The platform writes its own reference into the payer's particulars.
  if ('particulars' in source) return fail('`meta.source.particulars` is reserved');
  const out: PaymentMeta = { source: {}, destination: {} };
  for (const field of ['code', 'reference'] as const) {
    const checked = checkPcr(source[field], `meta.source.${field}`);
    if (!checked.ok) return checked;
    if (checked.value !== undefined) out.source[field] = checked.value;
  }
  for (const field of ['particulars', 'code', 'reference'] as const) {
    const checked = checkPcr(destination[field], `meta.destination.${field}`);
    if (!checked.ok) return checked;
    if (checked.value !== undefined) out.destination[field] = checked.value;
  }
  return { ok: true, value: out };
}

/** The account the money leaves: the user's own, shared with the app, active, able to pay. */
export function checkFromAccount(
  from: unknown,
  accounts: SandboxAccount[],
  attribute: string,
): Checked<SandboxAccount> {
  const account = accounts.find((candidate) => candidate._id === from);
  if (!account || account.status !== 'ACTIVE' || !account.attributes.includes(attribute))
    return fail(
      attribute === 'PAYMENT_FROM' ? 'from account is unable to make payments' : 'from account is unable to transfer',
    );
  return { ok: true, value: account };
}

export function checkPayment(body: unknown, accounts: SandboxAccount[], sentToday: number): Checked<PaymentRequest> {
  const given = (body ?? {}) as {
    from?: unknown;
    to?: { name?: unknown; account_number?: unknown };
    amount?: unknown;
    meta?: unknown;
  };
  const from = checkFromAccount(given.from, accounts, 'PAYMENT_FROM');
  if (!from.ok) return from;
  const to = given.to;
  if (typeof to?.name !== 'string' || to.name.trim() === '' || to.name.length > 140)
    return fail('`to.name` is required (at most 140 characters)');
  if (typeof to.account_number !== 'string' || !NZ_ACCOUNT_NUMBER.test(to.account_number))
    return fail('`to.account_number` must be a NZ bank account number (00-0000-0000000-00)');
  const amount = checkAmount(given.amount);
  if (!amount.ok) return amount;
  const limits = checkLimits(amount.value, sentToday);
  if (!limits.ok) return limits;
  const meta = checkMeta(given.meta);
  if (!meta.ok) return meta;
  return {
    ok: true,
    value: {
      from: from.value,
      to: { name: to.name.trim(), account_number: to.account_number },
      amount: amount.value,
      meta: meta.value,
    },
  };
}

export function checkIrdPayment(body: unknown, accounts: SandboxAccount[], sentToday: number): Checked<PaymentRequest> {
  const given = (body ?? {}) as {
    from?: unknown;
    amount?: unknown;
    meta?: { tax_number?: unknown; tax_type?: unknown; tax_period?: unknown };
  };
  const from = checkFromAccount(given.from, accounts, 'PAYMENT_FROM');
  if (!from.ok) return from;
  const amount = checkAmount(given.amount);
  if (!amount.ok) return amount;
  const limits = checkLimits(amount.value, sentToday);
  if (!limits.ok) return limits;
  const meta = given.meta ?? {};
  if (typeof meta.tax_number !== 'string' || !/^[\d-]{8,11}$/.test(meta.tax_number))
    return fail('meta.tax_number may only contain digits and hyphens');
  if (typeof meta.tax_type !== 'string' || !/^[A-Z]{3}$/.test(meta.tax_type))
    return fail('`meta.tax_type` must be a 3-letter tax type code');
  if (
    meta.tax_period !== undefined &&
    (typeof meta.tax_period !== 'string' || !/^\d{4}-\d{2}-\d{2}$/.test(meta.tax_period))
  )
    return fail('`meta.tax_period` must be a date (YYYY-MM-DD)');
  const digits = meta.tax_number.replace(/-/g, '');
  return {
    ok: true,
    value: {
      from: from.value,
      to: IRD_PAYEE,
      amount: amount.value,
      meta: {
        source: {},
        destination: {
          particulars: digits.slice(0, 12),
          code: meta.tax_type,
          reference: meta.tax_period?.replace(/-/g, ''),
        },
      },
    },
  };
}

function checkLimits(amount: number, sentToday: number): Checked<void> {
  if (amount > SANDBOX_PAYMENT_LIMITS.single) return fail('Payment above app limit');
  if (sentToday + amount > SANDBOX_PAYMENT_LIMITS.daily) return fail('Payment above app daily limit');
  return { ok: true, value: undefined };
}

export interface TransferRequest {
  from: SandboxAccount;
  to: SandboxAccount;
  amount: number;
}

export function checkTransfer(body: unknown, accounts: SandboxAccount[]): Checked<TransferRequest> {
  const given = (body ?? {}) as { from?: unknown; to?: unknown; amount?: unknown };
  const from = checkFromAccount(given.from, accounts, 'TRANSFER_FROM');
  if (!from.ok) return from;
  const to = accounts.find((account) => account._id === given.to);
  if (!to || to.status !== 'ACTIVE' || !to.attributes.includes('TRANSFER_TO') || to._id === from.value._id)
    return fail('to account is unable to receive transfers');
  if (to.connection._id !== from.value.connection._id)
    return fail('Transfers must be between accounts at the same bank');
  const amount = checkAmount(given.amount);
  if (!amount.ok) return amount;
  return { ok: true, value: { from: from.value, to, amount: amount.value } };
}
