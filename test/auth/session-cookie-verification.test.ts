import type { IncomingMessage, ServerResponse } from 'node:http';
import { afterEach, describe, expect, it } from 'vitest';
import { createMemorySessionStore } from '../../src/auth/memory-session-store.js';
import { SessionManager } from '../../src/auth/session-manager.js';
import type { SessionStore } from '../../src/auth/session-store.js';

/**
 * The session manager remembers cookie values it has verified (an HMAC and a hash saved per
 * request). What must not change: a cookie is honoured only if it is exactly one that was issued,
 * and only while its session lives.
 */

const stores: SessionStore[] = [];
afterEach(async () => {
  for (const store of stores.splice(0)) await store.close();
});

function managerWith(secret = 'test-secret-0123456789-0123456789') {
  let now = 1_000_000;
  const store = createMemorySessionStore({ clock: () => now, idleTimeoutMs: 60 * 60_000, sweepIntervalMs: 3_600_000 });
  stores.push(store);
  const manager = new SessionManager({
    store,
    secret,
    clock: () => now,
    maxAgeMs: 24 * 60 * 60_000,
    idleTimeoutMs: 60 * 60_000,
    publicUrl: () => 'http://gateway.test', // the scheme's own port: the cookie is plain gw_session
  });
  return { manager, advance: (ms: number) => (now += ms) };
}

/** Starts a session and returns the cookie header a browser would send back. */
async function signInAs(manager: SessionManager, userId: string): Promise<string> {
  const headers = new Map<string, unknown>();
  const res = {
    getHeader: (name: string) => headers.get(name),
    setHeader: (name: string, value: unknown) => headers.set(name, value),
  } as unknown as ServerResponse;
  await manager.start(res, { userId, authTime: 1, amr: ['pwd'] }, undefined);
  const setCookie = (headers.get('set-cookie') as string[])[0]!;
  return setCookie.split(';')[0]!;
}

const request = (cookie: string) => ({ headers: { cookie } }) as unknown as IncomingMessage;
const clearingResponse = () =>
  ({ getHeader: () => undefined, setHeader: () => undefined }) as unknown as ServerResponse;

describe('session cookies, verified once', () => {
  it('honours only the exact cookie issued, however often it was read before', async () => {
    const { manager } = managerWith();
    const cookie = await signInAs(manager, 'user-a');
    for (let read = 0; read < 3; read += 1) expect((await manager.read(request(cookie)))?.userId).toBe('user-a');

    const [name, value] = cookie.split('=') as [string, string];
    const signature = value.slice(value.lastIndexOf('.') + 1);
    const flipped = signature.at(-1) === 'A' ? 'B' : 'A';
    // The same id with a signature one character off, truncated, or missing: refused.
    for (const forged of [
      `${value.slice(0, -1)}${flipped}`,
      value.slice(0, -1),
      value.slice(0, value.lastIndexOf('.')),
      `${value}x`,
    ])
      expect(await manager.read(request(`${name}=${forged}`)), forged).toBeUndefined();
    // Signed with another secret: refused even though this manager has the id verified.
    const other = managerWith('another-secret-0123456789-012345678');
    expect(await other.manager.read(request(cookie))).toBeUndefined();
  });

  it('stops honouring a cookie once its session ends, here or by expiry', async () => {
    const { manager, advance } = managerWith();
    const ended = await signInAs(manager, 'user-b');
    expect(await manager.read(request(ended))).toBeDefined();
    await manager.end(request(ended), clearingResponse());
    expect(await manager.read(request(ended))).toBeUndefined();

    const lapsing = await signInAs(manager, 'user-c');
    expect(await manager.read(request(lapsing))).toBeDefined();
    advance(25 * 60 * 60_000);
    expect(await manager.read(request(lapsing))).toBeUndefined();
  });

  it('keeps verifying correctly past the number of cookies it remembers', async () => {
    const { manager } = managerWith();
    const cookies: string[] = [];
    for (let n = 0; n < 10_050; n += 1) cookies.push(await signInAs(manager, `user-${n % 50}`));
    for (const cookie of cookies) await manager.read(request(cookie));
    // The first ones were forgotten by now: verified afresh, still valid.
    for (const index of [0, 1, 5_000, 10_049])
      expect((await manager.read(request(cookies[index]!)))?.userId).toBe(`user-${index % 50}`);
  });
});
