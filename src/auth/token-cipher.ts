import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';

export interface TokenKey {
  id: string;
  /** 32 bytes. */
  key: Buffer;
}

export class TokenDecryptionError extends Error {
  constructor(reason: string) {
    super(`stored token could not be decrypted: ${reason}`);
    this.name = 'TokenDecryptionError';
  }
}

const IV_BYTES = 12;
const TAG_BYTES = 16;

/**
 * Platform tokens at rest: AES-256-GCM under TOKEN_ENCRYPTION_KEYS. The first key encrypts and
 * every key decrypts, so keys rotate without signing anyone out (add a new first key, keep the old
 * until sessions made under it have lapsed). The additional authenticated data binds a ciphertext
 * to the record it was written for (session key and user id): moved to another record, it fails.
 * Format: `v1.<key id>.<base64url iv | ciphertext | tag>`.
 */
export function createTokenCipher(keys: readonly TokenKey[]) {
  if (keys.length === 0) throw new Error('at least one token encryption key is required');
  for (const { key } of keys) if (key.length !== 32) throw new Error('token encryption keys must be 32 bytes');
  const byId = new Map(keys.map((entry) => [entry.id, entry.key]));
  const current = keys[0]!;

  return {
    encrypt(token: string, binding: string): string {
      const iv = randomBytes(IV_BYTES);
      const cipher = createCipheriv('aes-256-gcm', current.key, iv);
      cipher.setAAD(Buffer.from(binding, 'utf8'));
      const sealed = Buffer.concat([iv, cipher.update(token, 'utf8'), cipher.final(), cipher.getAuthTag()]);
      return `v1.${current.id}.${sealed.toString('base64url')}`;
    },
    decrypt(ciphertext: string, binding: string): string {
      const [version, keyId, payload] = ciphertext.split('.');
      if (version !== 'v1' || !keyId || !payload) throw new TokenDecryptionError('unknown format');
      const key = byId.get(keyId);
      if (!key) throw new TokenDecryptionError(`no key with id ${keyId}`);
      const sealed = Buffer.from(payload, 'base64url');
      if (sealed.length < IV_BYTES + TAG_BYTES) throw new TokenDecryptionError('truncated');
      const decipher = createDecipheriv('aes-256-gcm', key, sealed.subarray(0, IV_BYTES));
      decipher.setAAD(Buffer.from(binding, 'utf8'));
      decipher.setAuthTag(sealed.subarray(sealed.length - TAG_BYTES));
      try {
        return Buffer.concat([
          decipher.update(sealed.subarray(IV_BYTES, sealed.length - TAG_BYTES)),
          decipher.final(),
        ]).toString('utf8');
      } catch {
        throw new TokenDecryptionError('authentication failed (wrong key, or moved between records)');
      }
    },
  };
}

export type TokenCipher = ReturnType<typeof createTokenCipher>;
