/** WebSocket close codes the gateway uses beyond graphql-ws's own (4400-4499 mirror HTTP). */
export const CloseCode = {
  /**
   * The session ended (sign-out, revocation, TOKEN DELETE or expiry), or the socket's access token
   * expired, was refused, or its access ended: sign in again, or reconnect with a fresh token.
   */
  SESSION_ENDED: 4401,
  /** `connection_init` carried credentials the gateway cannot read, or both a cookie and a token. */
  BAD_CREDENTIALS: 4400,
  /** A browser origin sent an access token: browsers use the session cookie. */
  FORBIDDEN: 4403,
  /** The identity provider's keys cannot be had now: reconnect shortly. */
  TRY_AGAIN_LATER: 1013,
  /** Beyond WS_MAX_SOCKETS_PER_SESSION or WS_MAX_SOCKETS_PER_USER. */
  TOO_MANY_SOCKETS: 4429,
  /** A message over the socket's payload limit (64 KiB; ws closes with it by itself). */
  MESSAGE_TOO_BIG: 1009,
  /** The gateway is shutting down; reconnect (a load balancer sends you to another instance). */
  GOING_AWAY: 1001,
} as const;
