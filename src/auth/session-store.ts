/**
 * What the gateway holds for a session: a browser's, or a device's token family. The platform
 * token lives here (and in the bank connection) only: never in a cookie, a response or a log line.
 */
export interface SessionRecord {
  /** The app user: the identity provider's `sub`. */
  userId: string;
  /**
   * The platform token of the user's bank connection (a copy of the connection store's), or
   * undefined while the user has not connected.
   */
  platformToken?: string;
  /** When the user last actively authenticated at the identity provider (ms). */
  authTime: number;
  /** How they authenticated (OIDC `amr`): decides whether the session has multi-factor. */
  amr: string[];
  createdAt: number;
  /** Absolute end of the session, whatever the activity. */
  expiresAt: number;
  /** Last time the session was used; the idle timeout counts from here. */
  lastSeenAt: number;
  /**
   * A native or server client's device, signed in with access tokens (absent for a browser's
   * cookie session): the token's `client_id`, and its token family (`sid`, or the client id).
   */
  client?: { id: string; device: string };
}

/**
 * Storage for sessions, keyed by an opaque session id. In memory for now; a durable, shared store
 * (Redis, PostgreSQL) implements the same interface so that several gateway instances agree.
 */
export interface SessionStore {
  get(sessionKey: string): Promise<SessionRecord | undefined>;
  set(sessionKey: string, record: SessionRecord): Promise<void>;
  delete(sessionKey: string): Promise<void>;
  /** Every live session of a user (revoking all access must reach each one's token). */
  listByUser(userId: string): Promise<Array<{ sessionKey: string; record: SessionRecord }>>;
  /** Deletes every session of a user and returns their ids (revocation ends them all). */
  deleteByUser(userId: string): Promise<string[]>;
  /**
   * Finds lapsed sessions, deletes them and reports each once to the store's `onExpired` (its
   * token is then revoked). Runs on an interval by itself; exposed for tests.
   */
  sweep(): Promise<void>;
  close(): Promise<void>;
}
