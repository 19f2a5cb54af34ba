/** Payments and transfers as the platform serves them. */
export interface PaymentMeta {
  source: { code?: string; reference?: string };
  destination: { particulars?: string; code?: string; reference?: string };
}

export interface TimelineEntry {
  status: string;
  time: string;
  /** Only on SENT: when the money is expected to arrive. */
  eta?: string;
}

export interface SandboxPayment {
  _id: string;
  sid: string;
  from: string;
  to: { name: string; account_number: string };
  amount: number;
  meta: PaymentMeta;
  status: string;
  status_code?: string;
  status_text?: string;
  approval_type?: 'BANK' | 'USER';
  final: boolean;
  timeline: TimelineEntry[];
  created_at: string;
  updated_at: string;
  received_at?: string;
  sandboxUserId: string;
}

export interface SandboxTransfer {
  _id: string;
  sid: string;
  from: string;
  to: string;
  amount: number;
  status: string;
  status_text?: string;
  final: boolean;
  timeline: TimelineEntry[];
  created_at: string;
  updated_at: string;
  sandboxUserId: string;
}

export const FINAL_STATUSES = new Set(['SENT', 'DECLINED', 'ERROR', 'CANCELLED']);

/** Statuses from which the app may still cancel (`PUT /v1/payments/{id}/cancel`). */
export const CANCELLABLE_STATUSES = new Set(['READY', 'PENDING_APPROVAL', 'PAUSED']);

export interface NewPayment {
  amount: number;
  /** An account id of the user's with PAYMENT_FROM; default: the first such account. */
  from?: string;
  toName?: string;
  toAccount?: string;
  meta?: PaymentMeta;
}

/**
 * What the core API's payment routes ask of the sandbox's payments and transfers; the webhooks
 * room's PaymentControls keeps them and announces each change.
 */
export interface PaymentBook {
  readonly payments: ReadonlyMap<string, SandboxPayment>;
  readonly transfers: ReadonlyMap<string, SandboxTransfer>;
  createPayment(userId: string, input: NewPayment): SandboxPayment;
  settlePaymentLater(paymentId: string): void;
  cancelPayment(paymentId: string): 'cancelled' | 'not-cancellable';
  sentToday(userId: string): number;
  createTransfer(userId: string, amount: number, accounts?: { from: string; to: string }): SandboxTransfer;
  settleTransferLater(transferId: string): void;
}
