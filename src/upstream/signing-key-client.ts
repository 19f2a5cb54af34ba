import { UpstreamError } from './upstream-error.js';
import { httpStatusError, type UpstreamHttp } from './upstream-http.js';

/** The platform itself refused the id: 404 (unknown) or 400 (expired). */
export class KeyRefusedByPlatformError extends Error {}

export interface SigningKeyClient {
  /** `GET /v1/keys/{id}` with app-scoped Basic auth: the PEM public key. */
  fetchKey(keyId: number): Promise<string>;
}

/**
 * Its own client (and pool, with a response cap of a few KiB) because the key id comes from
 * webhook headers, which is attacker input: the path is built only from a validated integer.
 * The platform's 404 (unknown) and 400 (expired) are refusals; anything else is a failure.
 */
export function createSigningKeyClient(http: UpstreamHttp, appToken: string, appSecret: string): SigningKeyClient {
  const basic = `Basic ${Buffer.from(`${appToken}:${appSecret}`).toString('base64')}`;
  return {
    async fetchKey(keyId) {
      if (!Number.isSafeInteger(keyId) || keyId < 1) throw new Error(`refusing to fetch signing key ${String(keyId)}`);
      const response = await http.send({ method: 'GET', path: `/v1/keys/${keyId}`, headers: { authorization: basic } });
      if (response.status === 404 || response.status === 400)
        throw new KeyRefusedByPlatformError(`the platform refused signing key ${keyId} (${response.status})`);
      if (response.status < 200 || response.status >= 300)
        throw httpStatusError(http.name, 'GET /v1/keys/{id}', response);
      const item = (response.body as { item?: unknown } | undefined)?.item;
      if (typeof item !== 'string' || !item.includes('PUBLIC KEY'))
        throw new UpstreamError(http.name, 'bad_response', 'signing key response has no PEM');
      return item;
    },
  };
}
