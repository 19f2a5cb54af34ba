import type { Clock } from '@open-finance-gateway/common/clock';

/**
 * An app user's bank connection: the platform token granted by their consent, held for the app
 * user (not for a browser session), so a returning user signs in to the app and is connected
 * without consenting again. Signing out leaves it; revoking, a dead token, deleting the app account
 * or not signing in for BANK_CONNECTION_IDLE_DAYS removes it.
 */
export interface BankConnectionRecord {
  /** The platform's id of the person who consented (`GET /v1/me`). */
  platformUserId: string;
  /** The platform token the consent gave. Never leaves the server; encrypted at rest on Redis. */
  platformToken: string;
  /** When the user gave the consent behind this token (ms). */
  connectedAt: number;
  /** When the user last signed in to the app (or connected): the idle expiry counts from here. */
  lastUsedAt: number;
}

export interface BankConnectionStore {
  /** The user's connection, unless it has been idle past its deadline. */
  get(userId: string): Promise<BankConnectionRecord | undefined>;
  /** Stores the user's connection and returns the one it replaced (its token is then revoked). */
  set(userId: string, record: BankConnectionRecord): Promise<BankConnectionRecord | undefined>;
  /** The user signed in again: the connection's idle deadline moves on. */
  touch(userId: string): Promise<void>;
  /**
   * Removes the user's connection; with `onlyToken`, only while it still holds that token (a
   * refused old token must not remove a newer connection). Returns what was removed.
   */
  delete(userId: string, onlyToken?: string): Promise<BankConnectionRecord | undefined>;
  /**
   * Finds connections idle past their deadline, deletes them and reports each once to
   * `onExpired` (which revokes its token). Runs on an interval by itself; exposed for tests.
   */
  sweep(): Promise<void>;
  close(): Promise<void>;
}

export interface BankConnectionStoreOptions {
  clock: Clock;
  /** A connection whose user has not signed in for this long is no longer needed. */
  idleMs: number;
  /** Told of each connection that lapsed, once, by whichever instance sweeps it first. */
  onExpired?: (userId: string, record: BankConnectionRecord) => void;
  /** @default 60000 */
  sweepIntervalMs?: number;
}

/** The sweep every implementation runs on its own interval until closed. */
export function startSweeper(sweep: () => Promise<void>, intervalMs: number, onError: (error: unknown) => void) {
  const timer = setInterval(() => void sweep().catch(onError), intervalMs);
  timer.unref();
  return () => clearInterval(timer);
}
