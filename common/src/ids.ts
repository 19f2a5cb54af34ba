import { createHash, randomBytes } from 'node:crypto';

/** An unguessable token for cookies, OAuth state and routing handles (256 bits, base64url). */
export function randomToken(bytes = 32): string {
  return randomBytes(bytes).toString('base64url');
}

/** Stable digest used as a map key so that stores never hold the raw secret. */
export function sha256Hex(value: string | Buffer): string {
  return createHash('sha256').update(value).digest('hex');
}
