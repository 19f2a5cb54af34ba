import { constants, verify } from 'node:crypto';
import type { SigningKeyCache } from './signing-key-cache.js';

export type SignatureCheck =
  | { ok: true; keyId: number }
  | { ok: false; reason: 'missing-header' | 'repeated-header' | 'malformed-key-id' | 'malformed-signature' | 'key-unavailable' | 'signature-mismatch' };

/** A positive integer with no sign, no leading zero, no exponent, no hex: `1`, `42`. */
const KEY_ID = /^[1-9][0-9]{0,9}$/;
const BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;

/** One header value, or why there is not exactly one. `headersDistinct` keeps repeats apart. */
function single(headers: Record<string, string[] | undefined>, name: string): string | 'missing' | 'repeated' {
  const values = headers[name.toLowerCase()];
  if (!values || values.length === 0 || values[0]!.trim() === '') return 'missing';
  if (values.length > 1) return 'repeated';
  return values[0]!;
}

/**
 * Verifies a webhook before anything parses it: RSA-SHA256 with PKCS#1 v1.5 padding over the
 * exact raw bytes, against the base64 signature header, with the key named by the key-id header.
 * Malformed input is refused without any outbound request.
 */
export async function checkSignature(
  headersDistinct: Record<string, string[] | undefined>,
  rawBody: Buffer,
  headerPrefix: string,
  keys: SigningKeyCache,
): Promise<SignatureCheck> {
  const signature = single(headersDistinct, `${headerPrefix}-Signature`);
  const keyIdText = single(headersDistinct, `${headerPrefix}-Signing-Key`);
  if (signature === 'missing' || keyIdText === 'missing') return { ok: false, reason: 'missing-header' };
  if (signature === 'repeated' || keyIdText === 'repeated') return { ok: false, reason: 'repeated-header' };
  if (!KEY_ID.test(keyIdText)) return { ok: false, reason: 'malformed-key-id' };
  if (!BASE64.test(signature)) return { ok: false, reason: 'malformed-signature' };

  const keyId = Number(keyIdText);
  let key;
  try {
    key = await keys.get(keyId);
  } catch {
    return { ok: false, reason: 'key-unavailable' };
  }
  const valid = verify('sha256', rawBody, { key, padding: constants.RSA_PKCS1_PADDING }, Buffer.from(signature, 'base64'));
  if (!valid) return { ok: false, reason: 'signature-mismatch' };
  keys.confirm(keyId);
  return { ok: true, keyId };
}
