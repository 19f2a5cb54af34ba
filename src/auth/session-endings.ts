/**
 * Tells every instance that sessions ended (sign-out, revocation, TOKEN DELETE), so each closes
 * the sockets it holds for them. In memory it is a no-op: the one instance already knows.
 */
export interface SessionEndingsBus {
  publish(userId: string, sessionKeys: string[]): Promise<void>;
  /** Endings announced by other instances. */
  onRemoteEnded(listener: (userId: string, sessionKeys: string[]) => void): void;
}
