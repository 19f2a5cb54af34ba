import { createHmac, createPublicKey, sign } from 'node:crypto';
import { signingJwk } from '../identity/oidc-adapter.js';
import { loadRsaKey } from '../lib/key-file.js';

const encode = (value: object) => Buffer.from(JSON.stringify(value)).toString('base64url');

/**
 * Signs a JWT as the sandbox identity provider would (its own key and key id), or as an attacker
 * might try: `alg: none`, or HS256 keyed with the provider's public key. For tests of what a
 * resource server must refuse; the provider itself issues only RS256 `at+jwt` tokens.
 */
export function forgeJwt(
  payload: Record<string, unknown>,
  options: { header?: Record<string, unknown>; as?: 'provider' | 'none' | 'hs256-public-key' } = {},
): string {
  const as = options.as ?? 'provider';
  const alg = as === 'provider' ? 'RS256' : as === 'none' ? 'none' : 'HS256';
  const header = { alg, typ: 'at+jwt', kid: signingJwk().kid, ...options.header };
  const input = `${encode(header)}.${encode(payload)}`;
  const key = loadRsaKey('identity-signing-key');
  if (as === 'none') return `${input}.`;
  if (as === 'hs256-public-key') {
    const publicPem = createPublicKey(key).export({ type: 'spki', format: 'pem' });
    return `${input}.${createHmac('sha256', publicPem).update(input).digest('base64url')}`;
  }
  return `${input}.${sign('sha256', Buffer.from(input), key).toString('base64url')}`;
}
