import { ensureOk, type UserScope } from './core-envelopes.js';
import { userCalls, type TokenFirstCalls, type UserCallName } from './core-user-calls.js';
import type { PlatformTokenGrant } from './platform-types.js';
import { UpstreamError } from './upstream-error.js';
import type { UpstreamHttp } from './upstream-http.js';
import type { UpstreamRequest } from './upstream-request.js';

export type { DateRange, TransactionFilter } from './core-user-calls.js';

export interface CoreClientOptions {
  appToken: string;
  appSecret: string;
  /** `X-Service` per the specification, `X-Akahu` on the live platform. */
  headerPrefix: string;
}

/** The core API: every user-scoped call (see core-user-calls.ts) takes the user's token first. */
export interface CoreClient extends TokenFirstCalls {
  /** The same client, its calls tagged with a gateway request's id (sent as `x-request-id`). */
  forRequest(requestId: string): CoreClient;
  /** The same client, each call given up after `timeoutMs` (retries included) unless it names its own deadline. */
  withDeadline(timeoutMs: number): CoreClient;
  /** `POST /v1/token`: trades a single-use authorization code for a user access token. */
  exchangeCode(code: string, redirectUri: string): Promise<PlatformTokenGrant>;
}

/**
 * The platform's core API. Knows the platform's auth modes (user-scoped: bearer user token plus
 * the app id header; token exchange: credentials in the body) and its envelopes; knows nothing of
 * GraphQL or sessions.
 */
export function createCoreClient(http: UpstreamHttp, options: CoreClientOptions): CoreClient {
  const appIdHeader = `${options.headerPrefix}-Id`.toLowerCase();
  const scopeOf = (userToken: string): UserScope => ({
    upstream: http.name,
    send: (request: UpstreamRequest) =>
      http.send({
        ...request,
        headers: { authorization: `Bearer ${userToken}`, [appIdHeader]: options.appToken, ...request.headers },
      }),
  });
  const tokenFirst = Object.fromEntries(
    (Object.keys(userCalls) as UserCallName[]).map((name) => {
      const call = userCalls[name] as (scope: UserScope, ...args: unknown[]) => Promise<unknown>;
      return [name, (userToken: string, ...args: unknown[]) => call(scopeOf(userToken), ...args)];
    }),
  ) as TokenFirstCalls;
  return {
    ...tokenFirst,
    forRequest: (requestId) => createCoreClient(taggedWith(http, requestId), options),
    withDeadline: (timeoutMs) =>
      createCoreClient(
        { name: http.name, send: (request) => http.send({ timeoutMs, ...request }), close: async () => undefined },
        options,
      ),
    exchangeCode: (code, redirectUri) => exchangeCode(http, options, code, redirectUri),
  };
}

async function exchangeCode(
  http: UpstreamHttp,
  options: CoreClientOptions,
  code: string,
  redirectUri: string,
): Promise<PlatformTokenGrant> {
  const response = await http.send({
    method: 'POST',
    path: '/v1/token',
    json: {
      grant_type: 'authorization_code',
      code,
      redirect_uri: redirectUri,
      client_id: options.appToken,
      client_secret: options.appSecret,
    },
  });
  ensureOk({ upstream: http.name }, response, 'POST /v1/token');
  const grant = response.body as Partial<PlatformTokenGrant> | undefined;
  if (typeof grant?.access_token !== 'string' || grant.access_token.length === 0) {
    throw new UpstreamError(http.name, 'bad_response', 'token response has no access_token');
  }
  return { access_token: grant.access_token, token_type: String(grant.token_type ?? 'bearer'), scope: grant.scope };
}

/** `http` with every request it sends carrying `requestId`; its pool stays the shared one's to close. */
function taggedWith(http: UpstreamHttp, requestId: string): UpstreamHttp {
  return { name: http.name, send: (request) => http.send({ ...request, requestId }), close: async () => undefined };
}
