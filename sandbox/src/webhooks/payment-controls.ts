import { EventEmitter } from 'node:events';
import { sandboxId } from '../data/sandbox-ids.js';
import {
  CANCELLABLE_STATUSES,
  FINAL_STATUSES,
  type NewPayment,
  type PaymentBook,
  type SandboxPayment,
  type SandboxTransfer,
} from '../model/payment-model.js';
import type { SandboxState } from '../sandbox-state.js';
import type { DeliveryEngine } from './delivery-engine.js';

export interface PaymentStep {
  status: string;
  statusCode?: string;
  statusText?: string;
}

/**
 * What happens to a payment or transfer created through the API once `settleMs` has passed,
 * chosen by the cents of its amount so a frontend can try every path:
 * `.13` declined for insufficient funds, `.42` waits for the user's approval (cancel it, or move it
 * on with the controls), `.99` fails inside the platform, anything else is SENT.
 */
export function scenarioFor(amount: number): PaymentStep[] {
  const cents = Math.round(amount * 100) % 100;
  if (cents === 13) return [{ status: 'DECLINED', statusCode: 'INSUFFICIENT_FUNDS', statusText: 'Insufficient funds' }];
  if (cents === 42)
    return [{ status: 'PENDING_APPROVAL', statusText: 'Waiting for the user to approve in their bank' }];
  if (cents === 99) return [{ status: 'ERROR', statusCode: 'INTERNAL_ERROR', statusText: 'Something went wrong' }];
  return [{ status: 'SENT' }];
}

/**
 * The sandbox's payments and transfers: created through the API or the controls, moved through
 * their statuses (on their own after `settleMs`, or step by step), each transition announced
 * with the platform's PAYMENT and TRANSFER webhooks.
 */
export class PaymentControls implements PaymentBook {
  readonly payments = new Map<string, SandboxPayment>();
  readonly transfers = new Map<string, SandboxTransfer>();
  private sequence = 0;
  private readonly timers = new Set<NodeJS.Timeout>();
  private readonly changes = new EventEmitter<{ changed: [SandboxPayment | SandboxTransfer] }>().setMaxListeners(0);

  constructor(
    private readonly state: SandboxState,
    private readonly engine: DeliveryEngine,
    /** How long an API-created payment or transfer stays READY before its scenario plays. */
    private readonly settleMs = 1_000,
  ) {}

  createPayment(userId: string, input: NewPayment): SandboxPayment {
    const accounts = this.state.visibleAccounts(userId);
    const from = input.from
      ? accounts.find((account) => account._id === input.from)
      : accounts.find((account) => account.attributes.includes('PAYMENT_FROM'));
    if (!from) throw new Error('user has no account that can make payments');
    const payment: SandboxPayment = {
      ...this.opening('payment', userId),
      from: from._id,
      to: { name: input.toName ?? 'Kiwi Plumbing Ltd', account_number: input.toAccount ?? '12-3140-0412345-00' },
      amount: input.amount,
      // The platform writes its reference into the payer's particulars.
      meta: { source: { ...input.meta?.source }, destination: { ...input.meta?.destination } },
    };
    this.payments.set(payment._id, payment);
    this.engine.emit(userId, 'PAYMENT', 'UPDATE', { item_id: payment._id, status: 'READY' });
    this.changes.emit('changed', payment);
    return payment;
  }

  /** Plays the payment's scenario after `settleMs` (API-created payments). */
  settlePaymentLater(paymentId: string): void {
    const payment = this.payments.get(paymentId);
    if (!payment) return;
    this.later(() => {
      for (const step of scenarioFor(payment.amount)) if (!payment.final) this.advancePayment(paymentId, step);
    });
  }

  advancePayment(paymentId: string, step: PaymentStep): SandboxPayment {
    const payment = this.payments.get(paymentId);
    if (!payment) throw new Error(`unknown payment ${paymentId}`);
    payment.status_code = step.statusCode;
    if (step.status === 'PENDING_APPROVAL') payment.approval_type = 'USER';
    // Same-bank payments land at once; others with the next clearing cycle (here: an hour).
    this.move(
      payment,
      step,
      step.status === 'SENT' ? new Date(this.state.clock() + 3_600_000).toISOString() : undefined,
    );
    this.engine.emit(payment.sandboxUserId, 'PAYMENT', 'UPDATE', {
      item_id: payment._id,
      status: step.status,
      ...(step.statusCode ? { status_code: step.statusCode } : {}),
      ...(step.statusText ? { status_text: step.statusText } : {}),
    });
    this.changes.emit('changed', payment);
    // The payee's account is connected to the platform too: it sees the money arrive.
    if (step.status === 'SENT' && this.isConnectedAccount(payment.to.account_number))
      this.markPaymentReceived(payment._id);
    return payment;
  }

  /** `PUT /v1/payments/{id}/cancel`: only before the payment is final. */
  cancelPayment(paymentId: string): 'cancelled' | 'not-cancellable' {
    const payment = this.payments.get(paymentId)!;
    if (payment.final || !CANCELLABLE_STATUSES.has(payment.status)) return 'not-cancellable';
    this.advancePayment(paymentId, {
      status: 'CANCELLED',
      statusCode: 'APP_CANCELLED',
      statusText: 'Cancelled by the app',
    });
    return 'cancelled';
  }

  markPaymentReceived(paymentId: string): void {
    const payment = this.payments.get(paymentId)!;
    payment.received_at = this.now();
    this.engine.emit(payment.sandboxUserId, 'PAYMENT', 'RECEIVED', {
      item_id: payment._id,
      received_at: payment.received_at,
    });
  }

  private isConnectedAccount(accountNumber: string): boolean {
    for (const account of this.state.accounts.values()) if (account.formatted_account === accountNumber) return true;
    return false;
  }

  /** What the user's payments created since the start of today (UTC) add up to, for the daily limit. */
  sentToday(userId: string): number {
    const today = new Date(this.state.clock()).toISOString().slice(0, 10);
    let total = 0;
    for (const payment of this.payments.values())
      if (payment.sandboxUserId === userId && payment.created_at.startsWith(today) && payment.status !== 'CANCELLED')
        total += payment.amount;
    return total;
  }

  createTransfer(userId: string, amount: number, accounts?: { from: string; to: string }): SandboxTransfer {
    const visible = this.state.visibleAccounts(userId);
    const from = accounts
      ? visible.find((account) => account._id === accounts.from)
      : visible.find((account) => account.attributes.includes('TRANSFER_FROM'));
    const to = accounts
      ? visible.find((account) => account._id === accounts.to)
      : visible.find((account) => account !== from && account.attributes.includes('TRANSFER_TO'));
    if (!from || !to) throw new Error('user has no pair of accounts that can transfer');
    const transfer: SandboxTransfer = { ...this.opening('transfer', userId), from: from._id, to: to._id, amount };
    this.transfers.set(transfer._id, transfer);
    this.engine.emit(userId, 'TRANSFER', 'UPDATE', { item_id: transfer._id, status: 'READY' });
    this.changes.emit('changed', transfer);
    return transfer;
  }

  /** Plays the transfer's scenario after `settleMs`; a SENT transfer is then RECEIVED (both accounts are the user's). */
  settleTransferLater(transferId: string): void {
    const transfer = this.transfers.get(transferId);
    if (!transfer) return;
    this.later(() => {
      for (const step of scenarioFor(transfer.amount)) {
        if (transfer.final) break;
        this.advanceTransfer(transferId, { status: step.status, statusText: step.statusText });
      }
      if (transfer.status === 'SENT') this.markTransferReceived(transferId);
    });
  }

  advanceTransfer(transferId: string, step: PaymentStep): SandboxTransfer {
    const transfer = this.transfers.get(transferId);
    if (!transfer) throw new Error(`unknown transfer ${transferId}`);
    this.move(transfer, step);
    this.engine.emit(transfer.sandboxUserId, 'TRANSFER', 'UPDATE', {
      item_id: transfer._id,
      status: step.status,
      ...(step.statusText ? { status_text: step.statusText } : {}),
    });
    this.changes.emit('changed', transfer);
    return transfer;
  }

  markTransferReceived(transferId: string): void {
    const transfer = this.transfers.get(transferId)!;
    this.engine.emit(transfer.sandboxUserId, 'TRANSFER', 'RECEIVED', {
      item_id: transfer._id,
      received_at: this.now(),
    });
  }

  /** Resolves once the payment or transfer with this id reaches one of `statuses` (or already has). */
  waitForStatus(id: string, statuses: readonly string[]): Promise<SandboxPayment | SandboxTransfer> {
    const current = this.payments.get(id) ?? this.transfers.get(id);
    if (current && statuses.includes(current.status)) return Promise.resolve(current);
    return new Promise((resolve) => {
      const listener = (item: SandboxPayment | SandboxTransfer) => {
        if (item._id !== id || !statuses.includes(item.status)) return;
        this.changes.off('changed', listener);
        resolve(item);
      };
      this.changes.on('changed', listener);
    });
  }

  /** Calls `listener` with each payment or transfer as it is created or changes; returns how to stop. */
  onChange(listener: (item: SandboxPayment | SandboxTransfer) => void): () => void {
    this.changes.on('changed', listener);
    return () => this.changes.off('changed', listener);
  }

  /** Stops every scheduled transition (the sandbox is stopping). */
  stop(): void {
    for (const timer of this.timers) clearTimeout(timer);
    this.timers.clear();
  }

  /** What every new payment or transfer starts with: its ids, READY, and the first timeline entry. */
  private opening(kind: 'payment' | 'transfer', userId: string) {
    const now = this.now();
    this.sequence += 1;
    return {
      _id: sandboxId(kind, `${userId}:${this.sequence}:${now}`),
      sid: `${kind === 'payment' ? 'akp' : 'akt'}${String(this.sequence).padStart(6, '0')}`,
      status: 'READY',
      final: false,
      timeline: [{ status: 'READY', time: now }],
      created_at: now,
      updated_at: now,
      sandboxUserId: userId,
    };
  }

  /** A status change of a payment or transfer: status, text, finality, the timeline (with `eta` on SENT). */
  private move(item: SandboxPayment | SandboxTransfer, step: PaymentStep, eta?: string): void {
    const now = this.now();
    Object.assign(item, {
      status: step.status,
      status_text: step.statusText,
      final: FINAL_STATUSES.has(step.status),
      updated_at: now,
    });
    item.timeline.push({ status: step.status, time: now, ...(eta ? { eta } : {}) });
  }

  private later(run: () => void): void {
    const timer = setTimeout(() => {
      this.timers.delete(timer);
      run();
    }, this.settleMs);
    timer.unref();
    this.timers.add(timer);
  }

  private now(): string {
    return new Date(this.state.clock()).toISOString();
  }
}
