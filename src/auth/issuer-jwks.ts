import { request } from 'undici';

/** A JWKS of a few keys is a few KiB; discovery documents are larger but bounded. */
const MAX_DOCUMENT_BYTES = 64 * 1024;
const TIMEOUT_MS = 3_000;

/**
 * Fetches the issuer's JWKS: its `jwks_uri` from OpenID discovery (found once), then the set. Both
 * with a deadline and a size cap, no redirects; the `jwks_uri` must be https unless the issuer
 * itself is plain http (the embedded sandbox's).
 */
export function issuerJwksFetcher(issuer: string): () => Promise<unknown> {
  let jwksUri: Promise<string> | undefined;
  const discover = () => {
    jwksUri ??= getJson(`${issuer.replace(/\/+$/, '')}/.well-known/openid-configuration`)
      .then((metadata) => {
        const uri = (metadata as { jwks_uri?: unknown } | undefined)?.jwks_uri;
        if (typeof uri !== 'string') throw new Error('the discovery document names no jwks_uri');
        const parsed = new URL(uri);
        if (parsed.protocol !== 'https:' && !(parsed.protocol === 'http:' && issuer.startsWith('http:')))
          throw new Error('the jwks_uri is not https');
        return parsed.href;
      })
      .catch((error: unknown) => {
        jwksUri = undefined;
        throw error;
      });
    return jwksUri;
  };
  return async () => getJson(await discover());
}

async function getJson(url: string): Promise<unknown> {
  const response = await request(url, {
    method: 'GET',
    headers: { accept: 'application/json, application/jwk-set+json' },
    headersTimeout: TIMEOUT_MS,
    bodyTimeout: TIMEOUT_MS,
    signal: AbortSignal.timeout(TIMEOUT_MS),
  });
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of response.body as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > MAX_DOCUMENT_BYTES) {
      response.body.destroy();
      throw new Error(`${url} answered more than ${MAX_DOCUMENT_BYTES} bytes`);
    }
    chunks.push(chunk);
  }
  if (response.statusCode !== 200) throw new Error(`${url} answered ${response.statusCode}`);
  return JSON.parse(Buffer.concat(chunks).toString('utf8'));
}
