/** Payments and transfers as the platform serves them. */
export interface SandboxPayment {
  _id: string;
  sid: string;
  from: string;
  to: { name: string; account_number: string };
  amount: number;
  status: string;
  status_code?: string;
  status_text?: string;
  final: boolean;
  timeline: Array<{ status: string; time: string }>;
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
  timeline: Array<{ status: string; time: string }>;
  created_at: string;
  updated_at: string;
  sandboxUserId: string;
}

export const FINAL_STATUSES = new Set(['SENT', 'DECLINED', 'ERROR', 'CANCELLED']);
