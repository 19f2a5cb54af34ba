/** Wire shapes of the platform, named as the specification names them. */

export type Direction = 'DEBIT' | 'CREDIT';

export interface PlatformEnrichmentQuery {
  id?: string;
  description: string;
  _connection?: string;
  amount?: number;
  direction?: Direction;
}

export interface PlatformGroup {
  _id: string;
  name: string;
}

export interface PlatformCategory {
  _id: string;
  name: string;
  groups: Record<string, PlatformGroup>;
}

export interface PlatformMerchant {
  _id?: string;
  name?: string;
  logo?: string;
  website?: string;
}

export interface PlatformEnrichmentResult {
  confidence: number;
  category: PlatformCategory;
  merchant?: PlatformMerchant;
}

export interface PlatformEnrichmentItem {
  id?: string;
  query: string;
  results: PlatformEnrichmentResult[];
}

export interface PlatformUser {
  _id: string;
  email?: string;
  preferred_name?: string;
  access_granted_at?: string;
}

export interface PlatformTokenGrant {
  access_token: string;
  token_type: string;
  scope?: string;
}

export interface PlatformAccount {
  _id: string;
  name: string;
  status: string;
  type: string;
  formatted_account?: string;
  attributes?: string[];
  connection: { _id: string; name: string; logo?: string };
  balance?: { currency: string; current: number; available?: number; limit?: number; overdrawn?: boolean };
  meta?: { holder?: string; has_unlisted_holders?: boolean };
  refreshed?: { balance?: string; transactions?: string; meta?: string; party?: string };
}

export interface PlatformTransaction {
  _id: string;
  _account: string;
  _connection: string;
  date: string;
  description: string;
  amount: number;
  balance?: number;
  type: string;
  meta?: { particulars?: string; code?: string; reference?: string; other_account?: string; card_suffix?: string };
}

export type PlatformPendingTransaction = Omit<PlatformTransaction, '_id' | 'balance'> & { updated_at?: string };

export interface PlatformTransactionPage {
  items: PlatformTransaction[];
  next: string | null;
}

export interface PlatformNameInput {
  family_name: string;
  given_name?: string;
  middle_name?: string;
}

export interface PlatformNameVerification {
  sources: Array<{
    type: string;
    match_result: string;
    verification: Record<string, boolean>;
    meta: Record<string, unknown>;
  }>;
  name: PlatformNameInput;
}

export interface PlatformTimelineEntry {
  status: string;
  time: string;
  eta?: string;
}

export interface PlatformPaymentMeta {
  source?: { code?: string; reference?: string; particulars?: string };
  destination?: { particulars?: string; code?: string; reference?: string };
}

export interface PlatformPayment {
  _id: string;
  sid?: string;
  status: string;
  status_code?: string;
  status_text?: string;
  approval_type?: string;
  final?: boolean;
  amount: number;
  from?: string;
  to?: { name?: string; account_number?: string };
  meta?: PlatformPaymentMeta;
  timeline?: PlatformTimelineEntry[];
  created_at?: string;
  updated_at?: string;
  received_at?: string;
}

export interface PlatformTransfer {
  _id: string;
  sid?: string;
  status: string;
  status_text?: string;
  final?: boolean;
  amount: number;
  from?: string;
  to?: string;
  timeline?: PlatformTimelineEntry[];
  created_at?: string;
  updated_at?: string;
}

/** `POST /v1/payments`. */
export interface PlatformPaymentRequest {
  from: string;
  to: { name: string; account_number: string };
  amount: number;
  meta?: PlatformPaymentMeta;
}

/** `POST /v1/transfers`. */
export interface PlatformTransferRequest {
  from: string;
  to: string;
  amount: number;
}

/** What a creation answered: the object, and whether the platform replayed an earlier answer to the key. */
export interface PlatformCreation<T> {
  item: T;
  replayed: boolean;
}
