import { createHmac, timingSafeEqual } from 'node:crypto';

/**
 * Cookie values are `<id>.<HMAC-SHA256(id)>`: a forged or truncated cookie is refused before any
 * store lookup, and rotating SESSION_SECRET invalidates every outstanding cookie at once.
 */
export function signValue(value: string, secret: string): string {
  return `${value}.${mac(value, secret)}`;
}

export function verifySignedValue(signed: string | undefined, secret: string): string | undefined {
  if (!signed) return undefined;
  const dot = signed.lastIndexOf('.');
  if (dot <= 0) return undefined;
  const value = signed.slice(0, dot);
  const given = Buffer.from(signed.slice(dot + 1));
  const expected = Buffer.from(mac(value, secret));
  return given.length === expected.length && timingSafeEqual(given, expected) ? value : undefined;
}

function mac(value: string, secret: string): string {
  return createHmac('sha256', secret).update(value).digest('base64url');
}
