import type { PlatformTokenGrant, PlatformUser } from './platform-types.js';
import { UpstreamError } from './upstream-error.js';
import { httpStatusError, type UpstreamHttp, type UpstreamResponse } from './upstream-http.js';

export interface CoreClientOptions {
  appToken: string;
  appSecret: string;
  /** `X-Service` per the specification, `X-Akahu` on the live platform. */
  headerPrefix: string;
}

export interface CoreClient {
  /** `POST /v1/token`: trades a single-use authorization code for a user access token. */
  exchangeCode(code: string, redirectUri: string): Promise<PlatformTokenGrant>;
  /** `GET /v1/me` for the user behind `userToken`. */
  getMe(userToken: string): Promise<PlatformUser>;
}

/**
 * The platform's core API. Knows the platform's auth modes (user-scoped: bearer user token plus
 * the app id header; token exchange: credentials in the body) and its envelopes; knows nothing of
 * GraphQL or sessions.
 */
export function createCoreClient(http: UpstreamHttp, options: CoreClientOptions): CoreClient {
  const appIdHeader = `${options.headerPrefix}-Id`.toLowerCase();

  function userHeaders(userToken: string): Record<string, string> {
    return { authorization: `Bearer ${userToken}`, [appIdHeader]: options.appToken };
  }

  function ensureOk(response: UpstreamResponse, what: string): void {
    if (response.status < 200 || response.status >= 300) throw httpStatusError(http.name, what, response);
    const body = response.body as { success?: unknown } | undefined;
    if (body?.success === false) throw httpStatusError(http.name, what, { ...response, status: 502 });
  }

  return {
    async exchangeCode(code, redirectUri) {
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
      ensureOk(response, 'POST /v1/token');
      const grant = response.body as Partial<PlatformTokenGrant> | undefined;
      if (typeof grant?.access_token !== 'string' || grant.access_token.length === 0) {
        throw new UpstreamError(http.name, 'bad_response', 'token response has no access_token');
      }
      return { access_token: grant.access_token, token_type: String(grant.token_type ?? 'bearer'), scope: grant.scope };
    },

    async getMe(userToken) {
      const response = await http.send({ method: 'GET', path: '/v1/me', headers: userHeaders(userToken) });
      ensureOk(response, 'GET /v1/me');
      const item = (response.body as { item?: Partial<PlatformUser> } | undefined)?.item;
      if (typeof item?._id !== 'string') throw new UpstreamError(http.name, 'bad_response', '/v1/me response has no item._id');
      return item as PlatformUser;
    },
  };
}
