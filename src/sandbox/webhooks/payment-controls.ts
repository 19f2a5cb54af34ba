import { sandboxId } from '../data/sandbox-ids.js';
import { FINAL_STATUSES, type SandboxPayment, type SandboxTransfer } from '../core/payment-model.js';
import type { SandboxState } from '../sandbox-state.js';
import type { DeliveryEngine } from './delivery-engine.js';

export interface PaymentStep {
  status: string;
  statusCode?: string;
  statusText?: string;
}

/**
 * Moves sandbox payments and transfers through their statuses, emitting the platform's PAYMENT and
 * TRANSFER webhooks at each step (and RECEIVED when asked), so live status can be watched.
 */
export class PaymentControls {
  readonly payments = new Map<string, SandboxPayment>();
  readonly transfers = new Map<string, SandboxTransfer>();
  private sequence = 0;

  constructor(
    private readonly state: SandboxState,
    private readonly engine: DeliveryEngine,
  ) {}

  createPayment(userId: string, input: { amount: number; toName?: string; toAccount?: string }): SandboxPayment {
    const from = this.state.visibleAccounts(userId).find((account) => account.attributes.includes('PAYMENT_FROM'));
    if (!from) throw new Error('user has no account that can make payments');
    const now = this.now();
    this.sequence += 1;
    const payment: SandboxPayment = {
      _id: sandboxId('payment', `${userId}:${this.sequence}:${now}`),
      sid: `akp${String(this.sequence).padStart(6, '0')}`,
      from: from._id,
      to: { name: input.toName ?? 'Kiwi Plumbing Ltd', account_number: input.toAccount ?? '12-3140-0412345-00' },
      amount: input.amount,
      status: 'READY',
      final: false,
      timeline: [{ status: 'READY', time: now }],
      created_at: now,
      updated_at: now,
      sandboxUserId: userId,
    };
    this.payments.set(payment._id, payment);
    this.engine.emit(userId, 'PAYMENT', 'UPDATE', { item_id: payment._id, status: 'READY' });
    return payment;
  }

  advancePayment(paymentId: string, step: PaymentStep): SandboxPayment {
    const payment = this.payments.get(paymentId);
    if (!payment) throw new Error(`unknown payment ${paymentId}`);
    const now = this.now();
    Object.assign(payment, {
      status: step.status,
      status_code: step.statusCode,
      status_text: step.statusText,
      final: FINAL_STATUSES.has(step.status),
      updated_at: now,
    });
    payment.timeline.push({ status: step.status, time: now });
    this.engine.emit(payment.sandboxUserId, 'PAYMENT', 'UPDATE', {
      item_id: payment._id,
      status: step.status,
      ...(step.statusCode ? { status_code: step.statusCode } : {}),
      ...(step.statusText ? { status_text: step.statusText } : {}),
    });
    return payment;
  }

  markPaymentReceived(paymentId: string): void {
    const payment = this.payments.get(paymentId)!;
    payment.received_at = this.now();
    this.engine.emit(payment.sandboxUserId, 'PAYMENT', 'RECEIVED', {
      item_id: payment._id,
      received_at: payment.received_at,
    });
  }

  createTransfer(userId: string, amount: number): SandboxTransfer {
    const accounts = this.state.visibleAccounts(userId);
    const from = accounts.find((account) => account.attributes.includes('TRANSFER_FROM'));
    const to = accounts.find((account) => account !== from && account.attributes.includes('TRANSFER_TO'));
    if (!from || !to) throw new Error('user has no pair of accounts that can transfer');
    const now = this.now();
    this.sequence += 1;
    const transfer: SandboxTransfer = {
      _id: sandboxId('transfer', `${userId}:${this.sequence}:${now}`),
      sid: `akt${String(this.sequence).padStart(6, '0')}`,
      from: from._id,
      to: to._id,
      amount,
      status: 'READY',
      final: false,
      timeline: [{ status: 'READY', time: now }],
      created_at: now,
      updated_at: now,
      sandboxUserId: userId,
    };
    this.transfers.set(transfer._id, transfer);
    this.engine.emit(userId, 'TRANSFER', 'UPDATE', { item_id: transfer._id, status: 'READY' });
    return transfer;
  }

  advanceTransfer(transferId: string, step: PaymentStep): SandboxTransfer {
    const transfer = this.transfers.get(transferId);
    if (!transfer) throw new Error(`unknown transfer ${transferId}`);
    const now = this.now();
    Object.assign(transfer, {
      status: step.status,
      status_text: step.statusText,
      final: FINAL_STATUSES.has(step.status),
      updated_at: now,
    });
    transfer.timeline.push({ status: step.status, time: now });
    this.engine.emit(transfer.sandboxUserId, 'TRANSFER', 'UPDATE', {
      item_id: transfer._id,
      status: step.status,
      ...(step.statusText ? { status_text: step.statusText } : {}),
    });
    return transfer;
  }

  markTransferReceived(transferId: string): void {
    const transfer = this.transfers.get(transferId)!;
    this.engine.emit(transfer.sandboxUserId, 'TRANSFER', 'RECEIVED', {
      item_id: transfer._id,
      received_at: this.now(),
    });
  }

  private now(): string {
    return new Date(this.state.clock()).toISOString();
  }
}
