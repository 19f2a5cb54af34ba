import { mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it, vi } from 'vitest';
import { IdentityUsers, secretMatches } from '../src/identity/identity-users.js';
import { loadRsaKey } from '../src/lib/key-file.js';
import { track } from './support/leftovers.js';

// Counts scrypt runs (vi.mock is hoisted above the imports) (the password hash) without changing what it computes.
const scrypt = vi.hoisted(() => ({ calls: 0 }));
vi.mock('node:crypto', async (importOriginal) => {
  const crypto = await importOriginal<typeof import('node:crypto')>();
  return {
    ...crypto,
    scryptSync: (...args: Parameters<typeof crypto.scryptSync>) => {
      scrypt.calls += 1;
      return crypto.scryptSync(...args);
    },
  };
});

function scratchDirectory(): string {
  const directory = mkdtempSync(join(tmpdir(), 'sandbox-keys-'));
  track(() => rmSync(directory, { recursive: true, force: true }));
  return directory;
}

const modulus = (key: ReturnType<typeof loadRsaKey>) => key.export({ format: 'jwk' }).n;

describe('what a sandbox start costs', () => {
  it('makes its RSA keys once per machine: a later start reads the same key from its file', () => {
    const directory = scratchDirectory();
    const first = loadRsaKey('identity-signing-key', directory);
    expect(readdirSync(directory)).toEqual(['identity-signing-key.pem']);
    expect(first.asymmetricKeyDetails?.modulusLength).toBe(2048);
    expect(modulus(loadRsaKey('identity-signing-key', directory))).toBe(modulus(first));
    expect(modulus(loadRsaKey('webhook-signing-key', directory))).not.toBe(modulus(first));
  });

  it('replaces a key file that holds no usable key, and still gives a key where no file can be written', () => {
    const directory = scratchDirectory();
    writeFileSync(join(directory, 'identity-signing-key.pem'), 'not a key');
    const replaced = loadRsaKey('identity-signing-key', directory);
    expect(modulus(loadRsaKey('identity-signing-key', directory))).toBe(modulus(replaced));

    // A directory under a file: neither readable nor creatable, whoever runs the test.
    const notADirectory = join(directory, 'a-file');
    writeFileSync(notADirectory, '');
    const fresh = loadRsaKey('webhook-signing-key', join(notADirectory, 'keys'));
    expect(fresh.asymmetricKeyDetails?.modulusLength).toBe(2048);
  });

  it('hashes no demo secret until someone signs in, then each once', () => {
    scrypt.calls = 0;
    const users = new IdentityUsers('start-cost');
    users.addLoadUsers(50, 'Load-Sandbox-2026!', 'JBSWY3DPEHPK3PXP');
    expect(scrypt.calls).toBe(0);

    const aroha = users.byEmail('aroha@demo.example')!;
    expect(secretMatches(aroha, aroha.demoSecret!)).toBe(true);
    expect(secretMatches(aroha, 'wrong')).toBe(false);
    expect(scrypt.calls).toBe(3); // the hash once, then one per check

    // The load users share one hash, made once; a changed secret is that user's alone.
    const [first, second] = [users.byEmail('load_0@load.example')!, users.byEmail('load_1@load.example')!];
    expect(secretMatches(first, 'Load-Sandbox-2026!')).toBe(true);
    expect(users.changeSecret(first, 'Load-Sandbox-2026!', 'Another-Sandbox-2027!')).toBeUndefined();
    expect(secretMatches(first, 'Another-Sandbox-2027!')).toBe(true);
    expect(secretMatches(second, 'Load-Sandbox-2026!')).toBe(true);
    expect(secretMatches(second, 'Another-Sandbox-2027!')).toBe(false);
  });
});
