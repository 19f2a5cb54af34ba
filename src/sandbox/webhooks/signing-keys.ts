import { generateKeyPairSync, sign, type KeyObject } from 'node:crypto';

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

  constructor() {
    this.rotate();
  }

  get currentId(): number {
    return this.current;
  }

  rotate(): number {
    const previous = this.keys.get(this.current);
    if (previous) previous.expired = true;
    const { privateKey, publicKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
    this.current += 1;
    this.keys.set(this.current, { privateKey, publicPem: publicKey.export({ type: 'pkcs1', format: 'pem' }).toString(), expired: false });
    return this.current;
  }

  /** RSA-SHA256, PKCS#1 v1.5, over the exact bytes that will be sent; base64. */
  sign(body: Buffer, keyId = this.current): { keyId: number; signature: string } {
    const key = this.keys.get(keyId)!;
    return { keyId, signature: sign('sha256', body, key.privateKey).toString('base64') };
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
