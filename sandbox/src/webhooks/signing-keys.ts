import { createPublicKey, generateKeyPairSync, sign, type KeyObject } from 'node:crypto';
import { loadRsaKey } from '../lib/key-file.js';

interface SigningKey {
  privateKey: KeyObject;
  /** PKCS#1 PEM, as the live platform serves it (`-----BEGIN RSA PUBLIC KEY-----`). */
  publicPem: string;
  expired: boolean;
}

/**
 * The platform's webhook signing keys: RSA 2048, integer ids that increase on rotation, older keys
 * expired (their endpoint then answers 400 "This key has expired", as live).
 */
export class SigningKeys {
  private readonly keys = new Map<number, SigningKey>();
  private current = 0;

  /** Key 1 is the machine's cached key (see loadRsaKey): a new sandbox need not generate one. */
  constructor() {
    const privateKey = loadRsaKey('webhook-signing-key');
    this.current = 1;
    this.keys.set(1, { privateKey, publicPem: publicPem(createPublicKey(privateKey), 'rsa-2048'), expired: false });
  }

  get currentId(): number {
    return this.current;
  }

  /**
   * A new current key. `kind` other than the default makes a key no receiver should accept (a
   * compromised or misconfigured platform), for tests of the gateway's refusal.
   */
  rotate(kind: 'rsa-2048' | 'rsa-1024' | 'ed25519' = 'rsa-2048'): number {
    const previous = this.keys.get(this.current);
    if (previous) previous.expired = true;
    const { privateKey, publicKey } =
      kind === 'ed25519'
        ? generateKeyPairSync('ed25519')
        : generateKeyPairSync('rsa', { modulusLength: kind === 'rsa-1024' ? 1024 : 2048 });
    this.current += 1;
    this.keys.set(this.current, { privateKey, publicPem: publicPem(publicKey, kind), expired: false });
    return this.current;
  }

  /** RSA-SHA256, PKCS#1 v1.5, over the exact bytes that will be sent; base64. */
  sign(body: Buffer, keyId = this.current): { keyId: number; signature: string } {
    const key = this.keys.get(keyId)!;
    const algorithm = key.privateKey.asymmetricKeyType === 'ed25519' ? null : 'sha256';
    return { keyId, signature: sign(algorithm, body, key.privateKey).toString('base64') };
  }

  /** The private key behind an id, for tests that sign the wrong way on purpose. */
  privateKey(keyId = this.current): KeyObject {
    return this.keys.get(keyId)!.privateKey;
  }

  lookup(id: number): SigningKey | undefined {
    return this.keys.get(id);
  }

  /** For tests that need a signature the platform never made (another key, another padding). */
  static foreignKey(): KeyObject {
    return generateKeyPairSync('rsa', { modulusLength: 2048 }).privateKey;
  }
}

function publicPem(publicKey: KeyObject, kind: 'rsa-2048' | 'rsa-1024' | 'ed25519'): string {
  return publicKey
    .export(kind === 'ed25519' ? { type: 'spki', format: 'pem' } : { type: 'pkcs1', format: 'pem' })
    .toString();
}
