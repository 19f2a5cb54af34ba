import type { Clock } from '@open-finance-gateway/common/clock';
import { AccessTokenKeys } from '../auth/access-token-keys.js';
import { checkAccessToken } from '../auth/access-token.js';
import { issuerJwksFetcher } from '../auth/issuer-jwks.js';
import { createRequestAuthenticator, type RequestAuthenticator } from '../auth/request-authentication.js';
import type { GatewayConfig } from '../config/config.js';
import type { GatewayState } from './state.js';
import type { UpstreamEndpoints } from './upstream-choice.js';

/**
 * Step 4: how a request says who it is, for every transport: the session cookie, or an access
 * token of the app's identity provider for one of NATIVE_CLIENT_IDS (none: tokens are refused).
 */
export function createAuthenticator(deps: {
  config: GatewayConfig;
  endpoints: UpstreamEndpoints;
  state: GatewayState;
  clock: Clock;
  publicUrl: () => string;
  allowedOrigins: () => ReadonlySet<string>;
}): RequestAuthenticator {
  const { config, endpoints, state, clock } = deps;
  const { issuer, nativeClientIds } = endpoints.identity;
  const keys = new AccessTokenKeys({
    fetchJwks: issuerJwksFetcher(issuer),
    clock,
    unknownFetchesPerMinute: config.accessTokens.keyFetchesPerMinute,
  });
  const clientIds = new Set(nativeClientIds);
  return createRequestAuthenticator({
    sessions: state.sessions,
    bankConnections: state.stores.bankConnections,
    endings: state.stores.sessionEndings,
    allowedOrigins: deps.allowedOrigins,
    clock,
    checkToken:
      clientIds.size === 0
        ? undefined
        : (token, now) =>
            checkAccessToken(token, {
              keys: keys.resolve,
              issuer,
              audience: config.accessTokens.audience ?? deps.publicUrl(),
              algorithms: config.accessTokens.algorithms,
              clientIds,
              now,
            }),
  });
}
