/** WebSocket close codes the gateway uses beyond graphql-ws's own (4400-4499 mirror HTTP). */
export const CloseCode = {
  /** The session ended: sign-out, revocation, TOKEN DELETE or expiry. Sign in again. */
  SESSION_ENDED: 4401,
  /** Beyond WS_MAX_SOCKETS_PER_SESSION or WS_MAX_SOCKETS_PER_USER. */
  TOO_MANY_SOCKETS: 4429,
  /** The gateway is shutting down; reconnect (a load balancer sends you to another instance). */
  GOING_AWAY: 1001,
} as const;
