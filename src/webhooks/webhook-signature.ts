import { constants, verify } from 'node:crypto';
import { KeyUnavailableError, type KeyRefusal, type SigningKeyCache } from './signing-key-cache.js';

export type SignatureCheck =
  | { ok: true; keyId: number }
  | {
      ok: false;
      reason: 'missing-header' | 'repeated-header' | 'malformed-key-id' | 'malformed-signature' | 'signature-mismatch';
      retryable: false;
    }
  | { ok: false; reason: `key-${KeyRefusal}`; retryable: boolean };

/** A positive integer with no sign, no leading zero, no exponent, no hex: `1`, `42`. */
const KEY_ID = /^[1-9][0-9]{0,9}$/;
const BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;

/** One header value, or why there is not exactly one. `headersDistinct` keeps repeats apart. */
function single(headers: Record<string, string[] | undefined>, name: string): string {
  const values = headers[name.toLowerCase()];
  if (!values || values.length === 0 || values[0]!.trim() === '') return 'missing';
  if (values.length > 1) return 'repeated';
  return values[0]!;
}

/**
 * Verifies a webhook before anything parses it: RSA-SHA256 with PKCS#1 v1.5 padding over the
 * exact raw bytes, against the base64 signature header, with the key named by the key-id header.
 * Malformed input is refused without any outbound request. `retryable` says whether the refusal
 * may pass later (the key could not be had right now), as opposed to a signature that is wrong.
 */
export async function checkSignature(
  headersDistinct: Record<string, string[] | undefined>,
  rawBody: Buffer,
  headerPrefix: string,
  keys: SigningKeyCache,
): Promise<SignatureCheck> {
  const signature = single(headersDistinct, `${headerPrefix}-Signature`);
  const keyIdText = single(headersDistinct, `${headerPrefix}-Signing-Key`);
  if (signature === 'missing' || keyIdText === 'missing')
    return { ok: false, reason: 'missing-header', retryable: false };
  if (signature === 'repeated' || keyIdText === 'repeated')
    return { ok: false, reason: 'repeated-header', retryable: false };
  if (!KEY_ID.test(keyIdText)) return { ok: false, reason: 'malformed-key-id', retryable: false };
  if (!BASE64.test(signature)) return { ok: false, reason: 'malformed-signature', retryable: false };

  const keyId = Number(keyIdText);
  let key;
  try {
    key = await keys.get(keyId);
  } catch (error) {
    if (error instanceof KeyUnavailableError)
      return { ok: false, reason: `key-${error.reason}`, retryable: error.retryable };
    return { ok: false, reason: 'key-unavailable', retryable: true };
  }
  let valid = false;
  try {
    valid = verify('sha256', rawBody, { key, padding: constants.RSA_PKCS1_PADDING }, Buffer.from(signature, 'base64'));
  } catch {
    valid = false; // a key the cache let through should verify or not; never a 500
  }
  if (!valid) return { ok: false, reason: 'signature-mismatch', retryable: false };
  keys.confirm(keyId);
  return { ok: true, keyId };
}
