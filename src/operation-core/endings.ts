/**
 * Why a live operation (a socket, or an HTTP subscription stream) ends or is refused, in the
 * core's own words. Each transport turns an ending into its wire in one place (the refusal table
 * in `server/edge/refusal-table.ts`): a close code on a socket, a coded last frame or an HTTP status on a stream.
 */
export type Ending =
  /** The session ended: sign-out, revocation, TOKEN DELETE, or its absolute or idle expiry. */
  | { kind: 'session-ended' }
  /** The access token the operation was opened with expired (a bearer client refreshes it). */
  | { kind: 'token-expired' }
  /** The gateway is shutting down; another instance takes the client (subscribe again with `after`). */
  | { kind: 'going-away' }
  /** The session or the user already holds as many live operations as allowed. */
  | { kind: 'too-many'; cap: 'session' | 'user'; limit: number };

export const SESSION_ENDED: Ending = { kind: 'session-ended' };
export const TOKEN_EXPIRED: Ending = { kind: 'token-expired' };
export const GOING_AWAY: Ending = { kind: 'going-away' };
