/**
 * Tells every instance that sessions ended (sign-out, revocation, TOKEN DELETE), so each closes
 * the sockets it holds for them, and keeps the instants before which a user's (or one device's)
 * access tokens no longer count: an access token cannot be deleted the way a session can, so
 * ending access records when it ended, and every instance refuses tokens issued (`iat`) before.
 */
export interface SessionEndingsBus {
  publish(userId: string, sessionKeys: string[]): Promise<void>;
  /** Endings announced by other instances. */
  onRemoteEnded(listener: (userId: string, sessionKeys: string[]) => void): void;
  /** Access tokens of the user (or of one of their devices) issued before `at` are refused from now on. */
  endAccessBefore(userId: string, at: number, device?: string): Promise<void>;
  /** The latest such instant for the user and this device, if any. */
  accessNotBefore(userId: string, device: string): Promise<number | undefined>;
}

/**
 * How long an ending is kept: longer than any access token lives (the identity provider's
 * lifetimes are minutes to hours; a day is the longest the common providers allow by default).
 */
export const ACCESS_ENDING_TTL_MS = 7 * 86_400_000;
