/** A bank, as the platform serves it (the platform calls it a connection: `conn_…`). */
export interface SandboxConnection {
  _id: string;
  name: string;
  logo: string;
  connection_type: 'classic' | 'official';
  /** Whether the app may connect new users to this bank (false while migrating them to official). */
  new_connections_enabled: boolean;
}

/** Account, as the platform serves it (plus sandbox bookkeeping fields prefixed `sandbox`). */
export interface SandboxAccount {
  _id: string;
  _authorisation: string;
  connection: SandboxConnection;
  name: string;
  status: 'ACTIVE' | 'INACTIVE';
  formatted_account: string;
  type: 'CHECKING' | 'SAVINGS' | 'CREDITCARD' | 'KIWISAVER' | 'LOAN' | 'INVESTMENT';
  attributes: string[];
  balance: { currency: string; current: number; available?: number; limit?: number; overdrawn?: boolean };
  meta: { holder: string; has_unlisted_holders?: boolean };
  refreshed: { balance: string; transactions: string; meta: string };
  /** Owner in the sandbox. */
  sandboxUserId: string;
  /** Whether the user shared this account with the app (unshared ones are invisible to it). */
  sandboxShared: boolean;
}

export interface SandboxTransaction {
  _id: string;
  /** Deprecated on the platform (prefer `_id`), still served and typed by its SDK. */
  hash: string;
  _account: string;
  _connection: string;
  _user: string;
  created_at: string;
  updated_at: string;
  date: string;
  description: string;
  amount: number;
  balance?: number;
  type: string;
  meta: { particulars?: string; code?: string; reference?: string; card_suffix?: string; other_account?: string };
}

/** Pending rows have no id: they are replaced wholesale when they settle. */
export type SandboxPendingTransaction = Omit<SandboxTransaction, '_id' | 'hash' | 'created_at' | 'balance'>;

/** The name a bank associates with the credentials of one connection. */
export interface SandboxParty {
  userId: string;
  connectionId: string;
  value: string;
}
