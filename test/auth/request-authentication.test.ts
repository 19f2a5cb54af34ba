import { describe, expect, it } from 'vitest';
import type { AccessTokenCheck } from '../../src/auth/access-token.js';
import { createMemoryBankConnectionStore } from '../../src/auth/memory-bank-connection-store.js';
import { createMemorySessionEndings } from '../../src/auth/memory-session-endings.js';
import { createMemorySessionStore } from '../../src/auth/memory-session-store.js';
import { createRequestAuthenticator } from '../../src/auth/request-authentication.js';
import type { SessionEndingsBus } from '../../src/auth/session-endings.js';
import { SessionManager } from '../../src/auth/session-manager.js';

const NOW = 1_800_000_000_000;

/** The authenticator in process, with a token check that accepts every token as issued a minute ago. */
function setUp(endings: SessionEndingsBus = createMemorySessionEndings(() => NOW)) {
  const clock = () => NOW;
  const store = createMemorySessionStore({ clock, idleTimeoutMs: 3_600_000 });
  const sessions = new SessionManager({
    store,
    secret: 'x'.repeat(48),
    clock,
    maxAgeMs: 3_600_000,
    idleTimeoutMs: 3_600_000,
    publicUrl: () => 'http://gateway.test', // the scheme's own port: the cookie is plain gw_session
    endings,
  });
  const ended: string[][] = [];
  sessions.onEnded((_user, keys) => ended.push(keys));
  const checks = { count: 0 };
  const authenticator = createRequestAuthenticator({
    sessions,
    bankConnections: createMemoryBankConnectionStore({ clock, idleMs: 86_400_000 }),
    endings,
    allowedOrigins: () => new Set(['https://app.example']),
    clock,
    checkToken: async (token): Promise<AccessTokenCheck> => {
      checks.count += 1;
      return {
        ok: true,
        claims: {
          sub: 'user-1',
          clientId: 'app',
          issuedAt: NOW - 60_000,
          expiresAt: NOW + 600_000,
          authTime: NOW - 60_000,
          amr: ['otp'],
          acr: undefined,
          sid: token,
        },
      };
    },
  });
  return { authenticator, sessions, ended, checks };
}

describe('request authentication', () => {
  it('checks a token once and answers its later requests from the verified tokens', async () => {
    const { authenticator, checks } = setUp();
    for (let i = 0; i < 3; i += 1)
      expect(await authenticator.authenticate({ authorization: 'Bearer family-a' })).toMatchObject({ ok: true });
    expect(checks.count).toBe(1);
  });

  it('ends a device record written while access was being ended, rather than let it outlive the ending', async () => {
    const memory = createMemorySessionEndings(() => NOW);
    let reads = 0;
    // The ending lands between the request's first read of the instants and its write of the record.
    const racing: SessionEndingsBus = {
      ...memory,
      async accessNotBefore(userId, device) {
        reads += 1;
        if (reads === 2) await memory.endAccessBefore(userId, NOW);
        return memory.accessNotBefore(userId, device);
      },
    };
    const { authenticator, sessions, ended } = setUp(racing);
    const answer = await authenticator.authenticate({ authorization: 'Bearer family-b' });
    expect(answer).toMatchObject({ ok: false, refusal: { reason: 'ACCESS_ENDED' } });
    expect(await sessions.listOfUser('user-1')).toEqual([]);
    expect(ended).toHaveLength(1);
  });

  it('refuses a cookie with a token, a token from a foreign browser origin, and a header that is not a bearer token', async () => {
    const { authenticator, checks } = setUp();
    expect(await authenticator.authenticate({ authorization: 'Bearer t', cookie: 'gw_session=x' })).toMatchObject({
      refusal: { status: 400, reason: 'AMBIGUOUS_CREDENTIALS' },
    });
    expect(
      await authenticator.authenticate({ authorization: 'Bearer t', origin: 'https://evil.example' }),
    ).toMatchObject({
      refusal: { status: 403, reason: 'ORIGIN_NOT_ALLOWED' },
    });
    expect(await authenticator.authenticate({ authorization: 'Token t' })).toMatchObject({
      refusal: { status: 401, reason: 'MALFORMED_AUTHORIZATION' },
    });
    expect(checks.count).toBe(0);
    // Another cookie (not the session's) is no ambiguity; an allowed origin may send a token.
    expect(
      await authenticator.authenticate({
        authorization: 'Bearer t',
        cookie: 'theme=dark',
        origin: 'https://app.example',
      }),
    ).toMatchObject({ ok: true, via: 'bearer' });
  });
});
