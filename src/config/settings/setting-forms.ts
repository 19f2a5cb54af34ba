import type { Fail } from '../setting-types.js';

/** Forms and list parsers several table entries share. */

export const CREDENTIAL = { pattern: /^\S{8,}$/, shape: 'at least 8 characters, no spaces' };
export const LONG_CREDENTIAL = { pattern: /^\S{32,}$/, shape: 'at least 32 characters, no spaces' };
/** The enrichment key starts with the platform's fixed prefix, which ends in `token_`. */
export const ENRICHMENT_KEY_FORM = /^[a-z][a-z0-9]*(?:_[a-z0-9]+)*_token_[A-Za-z0-9_-]{8,}$/;

/** The app's name until APP_NAME gives the real one (the readiness report warns about it). */
export const DEFAULT_APP_NAME = 'Open Finance Demo';

/** The `amr` values (RFC 8176) a second factor shows up as, unless MFA_ACCEPTED_AMR says otherwise. */
export const DEFAULT_MFA_AMR = ['mfa', 'otp', 'sms', 'hwk', 'swk'];

/** Each item becomes its URL's origin; an item that is no URL is kept as given, after the problem is told. */
export function parseOrigins(items: string[], fail: Fail): string[] {
  return items.map((origin) => {
    try {
      return new URL(origin).origin;
    } catch {
      fail('must be a comma-separated list of origins (https://app.example.nz)');
      return origin;
    }
  });
}

export function parseAmrList(values: string[], fail: Fail): string[] | undefined {
  if (values.length === 0 || values.some((value) => !/^[a-z]{2,16}$/.test(value))) {
    fail('must be a comma-separated list of amr values (otp,sms,hwk,swk,mfa)');
    return undefined;
  }
  if (values.includes('pwd') || values.includes('pin'))
    fail('must not count a knowledge factor alone (pwd, pin) as multi-factor');
  return values;
}

export interface TokenKey {
  id: string;
  key: Buffer;
}

const TOKEN_KEY_FORM = /^([A-Za-z0-9_-]{1,16}):([A-Za-z0-9+/]{43}=)$/;

/** AES-256-GCM keys as `id:base64` entries; the problem never echoes a value (it is key material). */
export function parseTokenKeys(entries: string[], fail: Fail): TokenKey[] {
  const tokenKeys: TokenKey[] = [];
  for (const entry of entries) {
    const match = TOKEN_KEY_FORM.exec(entry);
    if (!match) {
      fail('must be a comma-separated list of id:base64 entries, each key 32 bytes (openssl rand -base64 32)');
      break;
    }
    if (tokenKeys.some((existing) => existing.id === match[1])) fail(`has the key id ${match[1]} twice`);
    tokenKeys.push({ id: match[1]!, key: Buffer.from(match[2]!, 'base64') });
  }
  return tokenKeys;
}

/** Schemes a return URI may never use: they would run or read something in the browser itself. */
const UNSAFE_SCHEMES = new Set([
  'javascript:',
  'data:',
  'file:',
  'blob:',
  'about:',
  'vbscript:',
  'ws:',
  'wss:',
  'ftp:',
]);

/**
 * Native apps' return URIs (RFC 8252): a claimed https link, a custom scheme (`nz.example.app:/connected`),
 * or a loopback `http://127.0.0.1` / `http://[::1]` URI (any port matches it). Never plain http
 * elsewhere, a fragment, or a scheme that runs in the browser.
 */
export function parseReturnUris(items: string[], fail: Fail): string[] {
  const shape =
    'must be a comma-separated list of app return URIs (https://app.example.nz/connected, nz.example.app:/connected)';
  return items.map((item) => {
    let url: URL;
    try {
      url = new URL(item);
    } catch {
      fail(shape);
      return item;
    }
    const loopback = url.protocol === 'http:' && ['127.0.0.1', '[::1]'].includes(url.hostname);
    if ((url.protocol === 'http:' && !loopback) || UNSAFE_SCHEMES.has(url.protocol) || url.hash !== '')
      fail(`${shape}; ${item.slice(0, 80)} is not one (plain http only on loopback, no fragment, no browser scheme)`);
    return url.href;
  });
}
