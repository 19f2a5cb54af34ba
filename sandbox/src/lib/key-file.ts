import { createPrivateKey, generateKeyPairSync, type KeyObject } from 'node:crypto';
import { mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** Where the sandbox keeps its throwaway RSA keys between starts (they sign for the sandbox only). */
export const KEY_DIRECTORY = join(tmpdir(), 'open-finance-sandbox');

/**
 * An RSA 2048 private key made once per machine rather than on every start: the sandbox needs two
 * (the identity provider's ID-token key and the first webhook signing key), and generating them
 * was 0.2 to 1 s of each `npm start` and of each sandbox a test creates. RSA key generation has no
 * seeded form in Node, so the keys are cached in files (written atomically, owner-only) rather
 * than derived from SANDBOX_SEED. A key file that is missing, unreadable or not an RSA key gets
 * a new key; a directory that cannot be written leaves this process with its key in memory.
 */
export function loadRsaKey(name: string, directory = KEY_DIRECTORY): KeyObject {
  const file = join(directory, `${name}.pem`);
  try {
    const key = createPrivateKey(readFileSync(file, 'utf8'));
    if (key.asymmetricKeyType === 'rsa' && key.asymmetricKeyDetails?.modulusLength === 2048) return key;
  } catch {
    // No key yet (or not one we can use): make one.
  }
  const { privateKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
  try {
    mkdirSync(directory, { recursive: true, mode: 0o700 });
    const temporary = `${file}.${process.pid}.tmp`;
    writeFileSync(temporary, privateKey.export({ type: 'pkcs8', format: 'pem' }), { mode: 0o600 });
    renameSync(temporary, file);
  } catch {
    // A read-only disk: this process keeps its key.
  }
  return privateKey;
}
