/**
 * The gateway's origin, fixed at build time (`VITE_GATEWAY_URL`). Only `VITE_`-prefixed variables
 * reach the bundle, and this one is public: the app holds no secret, the gateway keeps the tokens.
 */
export function gatewayUrl(): string {
  return (import.meta.env.VITE_GATEWAY_URL ?? 'http://localhost:4000').replace(/\/$/, '');
}
