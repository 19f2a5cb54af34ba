/**
 * An app user's bank connection: the platform token granted by their consent, held for the app
 * user (not for a browser session), so a returning user signs in to the app and is connected
 * without consenting again. Signing out leaves it; revoking, a dead token or deleting the app
 * account removes it.
 */
export interface ConnectionRecord {
  /** The platform's id of the person who consented (`GET /v1/me`). */
  platformUserId: string;
  /** Never leaves the server; encrypted at rest on Redis. */
  accessToken: string;
  /** When the user gave the consent behind this token (ms). */
  connectedAt: number;
}

export interface ConnectionStore {
  get(userId: string): Promise<ConnectionRecord | undefined>;
  /** Stores the user's connection and returns the one it replaced (its token is then revoked). */
  set(userId: string, record: ConnectionRecord): Promise<ConnectionRecord | undefined>;
  /**
   * Removes the user's connection; with `onlyToken`, only while it still holds that token (a
   * refused old token must not remove a newer connection). Returns what was removed.
   */
  delete(userId: string, onlyToken?: string): Promise<ConnectionRecord | undefined>;
}

/** In process memory: lost on restart (the platform consent then stays live until it lapses or is revoked). */
export function createMemoryConnectionStore(): ConnectionStore {
  const connections = new Map<string, ConnectionRecord>();
  return {
    async get(userId) {
      return connections.get(userId);
    },
    async set(userId, record) {
      const previous = connections.get(userId);
      connections.set(userId, record);
      return previous;
    },
    async delete(userId, onlyToken) {
      const current = connections.get(userId);
      if (!current || (onlyToken !== undefined && current.accessToken !== onlyToken)) return undefined;
      connections.delete(userId);
      return current;
    },
  };
}
