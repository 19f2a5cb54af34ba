import { createHmac, createPublicKey, generateKeyPairSync, sign as rsaSign, type KeyObject } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { AccessTokenKeys } from '../../src/auth/access-token-keys.js';
import { checkAccessToken, type AccessTokenCheckOptions } from '../../src/auth/access-token.js';

const ISSUER = 'https://login.example.test';
const AUDIENCE = 'https://gateway.example.test';
const NOW = 1_800_000_000_000;
const seconds = (ms: number) => Math.floor(ms / 1000);

const keyPair = () => generateKeyPairSync('rsa', { modulusLength: 2048 });
const good = keyPair();
const other = keyPair();

function jwkOf(key: KeyObject, kid: string) {
  return { ...createPublicKey(key).export({ format: 'jwk' }), kid, use: 'sig', alg: 'RS256' };
}

const encode = (value: object) => Buffer.from(JSON.stringify(value)).toString('base64url');

function sign(payload: Record<string, unknown>, header: Record<string, unknown> = {}, key = good.privateKey) {
  const input = `${encode({ alg: 'RS256', typ: 'at+jwt', kid: 'k1', ...header })}.${encode(payload)}`;
  return `${input}.${rsaSign('sha256', Buffer.from(input), key).toString('base64url')}`;
}

const claims = (extra: Record<string, unknown> = {}) => ({
  iss: ISSUER,
  aud: AUDIENCE,
  sub: 'user-1',
  client_id: 'nz.example.app',
  iat: seconds(NOW) - 60,
  exp: seconds(NOW) + 600,
  auth_time: seconds(NOW) - 60,
  amr: ['pwd', 'otp'],
  sid: 'family-1',
  ...extra,
});

/** A JWKS endpoint in process: counts its fetches, serves what `set` holds (or fails). */
function jwksEndpoint(initial: object[] = [jwkOf(good.privateKey, 'k1')]) {
  const endpoint = { fetches: 0, keys: initial as object[] | 'fail' };
  const fetchJwks = async () => {
    endpoint.fetches += 1;
    if (endpoint.keys === 'fail') throw new Error('down');
    return { keys: endpoint.keys };
  };
  return { endpoint, fetchJwks };
}

function setUp(clock = { now: NOW }, perMinute = 3) {
  const { endpoint, fetchJwks } = jwksEndpoint();
  const keys = new AccessTokenKeys({ fetchJwks, clock: () => clock.now, unknownFetchesPerMinute: perMinute });
  const options = (): AccessTokenCheckOptions => ({
    keys: keys.resolve,
    issuer: ISSUER,
    audience: AUDIENCE,
    algorithms: ['RS256', 'PS256', 'ES256', 'EdDSA'],
    clientIds: new Set(['nz.example.app']),
    now: clock.now,
  });
  const check = (token: string) => checkAccessToken(token, options());
  return { endpoint, keys, check, clock };
}

describe('checkAccessToken', () => {
  it('accepts an RFC 9068 access token and returns its user, client, family and sign-in facts', async () => {
    const { check } = setUp();
    expect(await check(sign(claims()))).toEqual({
      ok: true,
      claims: {
        sub: 'user-1',
        clientId: 'nz.example.app',
        issuedAt: (seconds(NOW) - 60) * 1000,
        expiresAt: (seconds(NOW) + 600) * 1000,
        authTime: (seconds(NOW) - 60) * 1000,
        amr: ['pwd', 'otp'],
        acr: undefined,
        sid: 'family-1',
      },
    });
  });

  it.each([
    ['another audience', () => sign(claims({ aud: 'https://other-api.example.test' })), 'audience'],
    ['another issuer', () => sign(claims({ iss: 'https://evil.example.test' })), 'issuer'],
    ['an expired token (past the 30 s skew)', () => sign(claims({ exp: seconds(NOW) - 31 })), 'expired'],
    ['a token not yet valid', () => sign(claims({ nbf: seconds(NOW) + 120 })), 'not_yet_valid'],
    ['a token issued in the future', () => sign(claims({ iat: seconds(NOW) + 120 })), 'not_yet_valid'],
    ['an ID token (typ JWT)', () => sign(claims(), { typ: 'JWT' }), 'type'],
    ['a client not on NATIVE_CLIENT_IDS', () => sign(claims({ client_id: 'someone-else' })), 'client'],
    ['a token without a subject', () => sign(claims({ sub: undefined })), 'claims'],
    ['a signature by another key under the same kid', () => sign(claims(), {}, other.privateKey), 'signature'],
    ['alg none', () => `${encode({ alg: 'none', typ: 'at+jwt' })}.${encode(claims())}.`, 'algorithm'],
    [
      'HS256 keyed with the public key',
      () => {
        const input = `${encode({ alg: 'HS256', typ: 'at+jwt', kid: 'k1' })}.${encode(claims())}`;
        const secret = createPublicKey(good.privateKey).export({ type: 'spki', format: 'pem' });
        return `${input}.${createHmac('sha256', secret).update(input).digest('base64url')}`;
      },
      'algorithm',
    ],
    ['an 8 KB token', () => sign(claims({ padding: 'x'.repeat(8 * 1024) })), 'too_large'],
    ['not a JWT', () => 'not-a-token', 'malformed'],
  ])('refuses %s', async (_name, token, reason) => {
    const { check } = setUp();
    expect(await check(token())).toEqual({ ok: false, reason });
  });

  it('refuses an oversized token before fetching any key', async () => {
    const { check, endpoint } = setUp();
    await check(sign(claims({ padding: 'x'.repeat(8 * 1024) })));
    expect(endpoint.fetches).toBe(0);
  });
});

describe('the access-token key cache', () => {
  it('fetches the set once for many tokens signed by a held key', async () => {
    const { check, endpoint } = setUp();
    await Promise.all(Array.from({ length: 20 }, () => check(sign(claims()))));
    expect(endpoint.fetches).toBe(1);
  });

  it('spends at most the per-minute budget on an unknown kid sent again and again, then refills', async () => {
    const clock = { now: NOW };
    const { check, endpoint } = setUp(clock, 3);
    await check(sign(claims()));
    const reasons: unknown[] = [];
    for (let i = 0; i < 50; i += 1) reasons.push(await check(sign(claims(), { kid: `made-up-${i}` })));
    // The first fetch loaded the set; three more for unknown ids, then the budget is spent.
    expect(endpoint.fetches).toBe(1 + 3);
    expect(reasons.slice(0, 3)).toEqual(Array(3).fill({ ok: false, reason: 'key_unknown' }));
    expect(reasons.slice(3)).toEqual(Array(47).fill({ ok: false, reason: 'key_budget' }));
    // Half a minute on, the budget has refilled by one: the same unknown id is still answered from
    // memory (for a minute), a new one costs the refilled fetch.
    clock.now += 30_000;
    expect(await check(sign(claims(), { kid: 'made-up-0' }))).toEqual({ ok: false, reason: 'key_unknown' });
    expect(endpoint.fetches).toBe(4);
    await check(sign(claims(), { kid: 'made-up-new' }));
    expect(endpoint.fetches).toBe(5);
    // The good key still answers throughout.
    expect((await check(sign(claims({ iat: seconds(clock.now) - 1, exp: seconds(clock.now) + 60 })))).ok).toBe(true);
  });

  it('keeps a good key when a refetch for a bad kid fails or returns nothing usable', async () => {
    const { check, endpoint } = setUp();
    expect((await check(sign(claims()))).ok).toBe(true);
    endpoint.keys = 'fail';
    expect(await check(sign(claims(), { kid: 'bad-1' }))).toEqual({ ok: false, reason: 'key_unknown' });
    endpoint.keys = [{ kty: 'oct', k: 'c2VjcmV0', kid: 'k1' }];
    expect(await check(sign(claims(), { kid: 'bad-2' }))).toEqual({ ok: false, reason: 'key_unknown' });
    expect((await check(sign(claims()))).ok).toBe(true);
  });

  it('picks up a rotated key by its new kid with one refetch', async () => {
    const { check, endpoint } = setUp();
    await check(sign(claims()));
    endpoint.keys = [jwkOf(good.privateKey, 'k1'), jwkOf(other.privateKey, 'k2')];
    expect((await check(sign(claims(), { kid: 'k2' }, other.privateKey))).ok).toBe(true);
    expect(endpoint.fetches).toBe(2);
  });

  it('answers keys_unavailable, not a crash, when the issuer cannot be reached and nothing is held', async () => {
    const clock = { now: NOW };
    const { fetchJwks, endpoint } = jwksEndpoint();
    endpoint.keys = 'fail';
    const keys = new AccessTokenKeys({ fetchJwks, clock: () => clock.now, unknownFetchesPerMinute: 3 });
    const options = {
      keys: keys.resolve,
      issuer: ISSUER,
      audience: AUDIENCE,
      algorithms: ['RS256'],
      clientIds: new Set(['nz.example.app']),
      now: NOW,
    };
    expect(await checkAccessToken(sign(claims()), options)).toEqual({ ok: false, reason: 'keys_unavailable' });
    // Not retried in a loop: the next token within 5 s does not fetch again.
    await checkAccessToken(sign(claims()), options);
    expect(endpoint.fetches).toBe(1);
  });
});
