import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { sha256Hex } from '@open-finance-gateway/common/ids';
import { createLogger } from '@open-finance-gateway/common/logger';
import type { BankConnectionStore } from '../../src/auth/bank-connection-store.js';
import { createMemoryBankConnectionStore } from '../../src/auth/memory-bank-connection-store.js';
import { createMemoryOAuthStateStore } from '../../src/auth/memory-oauth-state-store.js';
import { createMemorySessionStore } from '../../src/auth/memory-session-store.js';
import type { OAuthStateStore } from '../../src/auth/oauth-state-store.js';
import { createRedisBankConnectionStore } from '../../src/auth/redis-bank-connection-store.js';
import { createRedisOAuthStateStore } from '../../src/auth/redis-oauth-state-store.js';
import { createRedisSessionStore } from '../../src/auth/redis-session-store.js';
import type { SessionRecord, SessionStore } from '../../src/auth/session-store.js';
import { createTokenCipher } from '../../src/auth/token-cipher.js';
import type { RedisConnectionSettings } from '../../src/config/redis-settings.js';
import { createRedisClient } from '../../src/redis/redis-client.js';
import { userTag } from '../../src/redis/redis-keys.js';
import { track } from '../support/leftovers.js';
import { storeKinds } from '../support/redis-topologies.js';
import { dumpKeys, SHARED_REDIS, testPrefix } from '../support/redis.js';

/** The contract of the sign-in stores (sessions, bank connections, OAuth states), in memory and on Redis. */

const IDLE_MS = 60_000;
const CONNECTION_IDLE_MS = 30 * 86_400_000;
const logger = createLogger({ level: 'silent' });

interface Stores {
  sessions: SessionStore;
  /** A second handle on the same sessions (another instance, on Redis). */
  otherSessions: SessionStore;
  /** What `onExpired` reported, on either handle. */
  expired: Array<{ key: string; token: string | undefined }>;
  oauthStates: OAuthStateStore;
  connections: BankConnectionStore;
  /** A second handle on the same connections (another instance, on Redis). */
  otherConnections: BankConnectionStore;
  /** What the connection stores' `onExpired` reported. */
  expiredConnections: Array<{ userId: string; token: string }>;
  /** Moves the connection stores' clock on. */
  advance(ms: number): void;
  /** What Redis holds (empty in memory), for the at-rest checks. */
  dump(): Promise<Array<[string, string]>>;
}

const cipher = createTokenCipher([{ id: 'k1', key: randomBytes(32) }]);

async function redisStores(connection: RedisConnectionSettings): Promise<Stores> {
  const keyPrefix = testPrefix();
  const redis = createRedisClient({ connection, commandTimeoutMs: 1_000, logger, role: 'test' });
  await redis.connect();
  track(() => redis.disconnect());
  const options = { redis, keyPrefix };
  const expired: Array<{ key: string; token: string | undefined }> = [];
  let now = Date.now();
  const expiredConnections: Array<{ userId: string; token: string }> = [];
  const connectionStore = () => {
    const store = createRedisBankConnectionStore({
      ...options,
      cipher,
      logger,
      clock: () => now,
      idleMs: CONNECTION_IDLE_MS,
      onExpired: (userId, record) => expiredConnections.push({ userId, token: record.platformToken }),
    });
    track(() => store.close());
    return store;
  };
  const sessionStore = () => {
    const store = createRedisSessionStore({
      redis,
      keyPrefix,
      cipher,
      clock: Date.now,
      idleTimeoutMs: IDLE_MS,
      logger,
      onExpired: (key, record) => expired.push({ key, token: record.platformToken }),
    });
    track(() => store.close());
    return store;
  };
  return {
    sessions: sessionStore(),
    otherSessions: sessionStore(),
    expired,
    oauthStates: createRedisOAuthStateStore(options),
    connections: connectionStore(),
    otherConnections: connectionStore(),
    expiredConnections,
    advance: (ms) => (now += ms),
    dump: () => (connection.mode === 'standalone' ? dumpKeys(keyPrefix) : Promise.resolve([])),
  };
}

function memoryStores(): Stores {
  const expired: Array<{ key: string; token: string | undefined }> = [];
  let now = Date.now();
  const expiredConnections: Array<{ userId: string; token: string }> = [];
  const connections = createMemoryBankConnectionStore({
    clock: () => now,
    idleMs: CONNECTION_IDLE_MS,
    onExpired: (userId, record) => expiredConnections.push({ userId, token: record.platformToken }),
  });
  track(() => connections.close());
  const sessions = createMemorySessionStore({
    clock: Date.now,
    idleTimeoutMs: IDLE_MS,
    onExpired: (key, record) => expired.push({ key, token: record.platformToken }),
  });
  track(() => sessions.close());
  return {
    sessions,
    otherSessions: sessions,
    expired,
    oauthStates: createMemoryOAuthStateStore({ maxPending: 100 }),
    connections,
    otherConnections: connections,
    expiredConnections,
    advance: (ms) => (now += ms),
    dump: async () => [],
  };
}

function sessionKey(userId: string): string {
  return `${userTag(userId)}.${sha256Hex(randomBytes(16))}`;
}

function record(userId: string, overrides: Partial<SessionRecord> = {}): SessionRecord & { platformToken: string } {
  const now = Date.now();
  return {
    userId,
    platformToken: `user_token_${randomBytes(12).toString('hex')}`,
    authTime: now - 1_000,
    amr: ['pwd', 'otp'],
    createdAt: now,
    expiresAt: now + 3_600_000,
    lastSeenAt: now,
    ...overrides,
  };
}

for (const [kind, make] of storeKinds(memoryStores, redisStores)) {
  describe(`sign-in stores contract: ${kind}`, () => {
    it('sessions: set, get, list by user, delete one, delete all of a user', async () => {
      const { sessions } = await make();
      const [a, b, other] = [sessionKey('user_a'), sessionKey('user_a'), sessionKey('user_b')];
      const first = record('user_a');
      await sessions.set(a, first);
      await sessions.set(b, record('user_a'));
      await sessions.set(other, record('user_b'));
      expect(await sessions.get(a)).toEqual(first);
      expect((await sessions.listByUser('user_a')).map((entry) => entry.sessionKey).sort()).toEqual([a, b].sort());
      await sessions.delete(a);
      expect(await sessions.get(a)).toBeUndefined();
      expect((await sessions.listByUser('user_a')).map((entry) => entry.sessionKey)).toEqual([b]);
      expect(await sessions.deleteByUser('user_a')).toEqual([b]);
      expect(await sessions.get(b)).toBeUndefined();
      expect(await sessions.get(other)).toBeDefined();
    });

    it('sessions: a write applied after its session ended (a touch racing sign-out, a timed-out write run late) does not bring it back', async () => {
      const { sessions, otherSessions } = await make();
      const [one, two, fresh] = [sessionKey('user_r'), sessionKey('user_r'), sessionKey('user_r')];
      const first = record('user_r');
      await sessions.set(one, first);
      await sessions.set(two, record('user_r'));
      // Read for a touch, then ended elsewhere, then the touch's write lands.
      const read = await sessions.get(one);
      await otherSessions.delete(one);
      await sessions.set(one, { ...read!, lastSeenAt: Date.now() });
      expect(await sessions.get(one)).toBeUndefined();
      // Every session of the user ended (a revocation), then a late write of one of them.
      await otherSessions.deleteByUser('user_r');
      await sessions.set(two, record('user_r'));
      expect(await sessions.get(two)).toBeUndefined();
      expect(await sessions.listByUser('user_r')).toEqual([]);
      // A new session of the same user is another id: unaffected.
      await sessions.set(fresh, first);
      expect(await sessions.get(fresh)).toEqual(first);
    });

    it('sessions: a session past its absolute or idle deadline is gone', async () => {
      const { sessions } = await make();
      const now = Date.now();
      const [absolute, idle] = [sessionKey('user_c'), sessionKey('user_c')];
      await sessions.set(absolute, record('user_c', { expiresAt: now - 1 }));
      await sessions.set(idle, record('user_c', { lastSeenAt: now - IDLE_MS - 1 }));
      expect(await sessions.get(absolute)).toBeUndefined();
      expect(await sessions.get(idle)).toBeUndefined();
      expect(await sessions.listByUser('user_c')).toEqual([]);
    });

    it('sessions: a sweep reports each lapsed session once, with its token, on whichever instance sweeps first', async () => {
      const { sessions, otherSessions, expired } = await make();
      const [lapsed, live] = [sessionKey('user_g'), sessionKey('user_g')];
      const old = record('user_g', { lastSeenAt: Date.now() - IDLE_MS - 1 });
      await sessions.set(lapsed, old);
      await sessions.set(live, record('user_g'));
      await Promise.all([sessions.sweep(), otherSessions.sweep(), sessions.sweep()]);
      expect(expired).toEqual([{ key: lapsed, token: old.platformToken }]);
      expect((await sessions.listByUser('user_g')).map((entry) => entry.sessionKey)).toEqual([live]);
      await sessions.sweep();
      expect(expired).toHaveLength(1);
    });

    it('sessions: a session without a connection keeps no token; attaching one later is kept', async () => {
      const { sessions } = await make();
      const key = sessionKey('user_n');
      const { platformToken, ...unconnected } = record('user_n');
      await sessions.set(key, unconnected);
      expect(await sessions.get(key)).toEqual(unconnected);
      await sessions.set(key, { ...unconnected, platformToken });
      expect((await sessions.get(key))?.platformToken).toBe(platformToken);
    });

    it('connections: one per user, replaced with the previous returned, deleted only while holding the token', async () => {
      const { connections } = await make();
      const at = Date.now();
      const first = {
        platformUserId: 'user_p1',
        platformToken: 'user_token_first_0123456789',
        connectedAt: at,
        lastUsedAt: at,
      };
      const second = { ...first, platformToken: 'user_token_second_0123456789', connectedAt: at + 1 };
      expect(await connections.get('app_c')).toBeUndefined();
      expect(await connections.set('app_c', first)).toBeUndefined();
      expect(await connections.get('app_c')).toEqual(first);
      expect(await connections.set('app_c', second)).toEqual(first);
      // The old token is refused somewhere: the newer connection must stay.
      expect(await connections.delete('app_c', first.platformToken)).toBeUndefined();
      expect(await connections.get('app_c')).toEqual(second);
      expect(await connections.delete('app_c', second.platformToken)).toEqual(second);
      expect(await connections.get('app_c')).toBeUndefined();
      await connections.set('app_c', first);
      expect(await connections.delete('app_c')).toEqual(first);
      expect(await connections.delete('app_c')).toBeUndefined();
    });

    it('connections: idle past their deadline they are gone, and a sweep reports each once; signing in (touch) keeps one', async () => {
      const { connections, otherConnections, expiredConnections, advance } = await make();
      const at = Date.now();
      const record = (token: string) => ({
        platformUserId: 'user_px',
        platformToken: token,
        connectedAt: at,
        lastUsedAt: at,
      });
      await connections.set('app_idle', record('user_token_idle_0123456789'));
      await connections.set('app_used', record('user_token_used_0123456789'));
      advance(CONNECTION_IDLE_MS - 1_000);
      await connections.touch('app_used');
      advance(2_000);
      expect(await connections.get('app_idle')).toBeUndefined();
      expect((await connections.get('app_used'))?.platformToken).toBe('user_token_used_0123456789');
      await Promise.all([connections.sweep(), otherConnections.sweep(), connections.sweep()]);
      expect(expiredConnections).toEqual([{ userId: 'app_idle', token: 'user_token_idle_0123456789' }]);
      advance(CONNECTION_IDLE_MS);
      await connections.sweep();
      expect(expiredConnections.map((entry) => entry.userId)).toEqual(['app_idle', 'app_used']);
      await connections.sweep();
      expect(expiredConnections).toHaveLength(2);
    });

    it('oauth state: single use, bound to the browser', async () => {
      const { oauthStates } = await make();
      const state = await oauthStates.issue('binding-1', '/graphql');
      expect(await oauthStates.consume(state, 'binding-2')).toEqual({ ok: false, reason: 'foreign' });
      const again = await oauthStates.issue('binding-1', '/app');
      expect(await oauthStates.consume(again, 'binding-1')).toEqual({ ok: true, returnTo: '/app' });
      expect(await oauthStates.consume(again, 'binding-1')).toEqual({ ok: false, reason: 'unknown' });
      expect(await oauthStates.consume(null, 'binding-1')).toEqual({ ok: false, reason: 'missing' });
      // Racing consumers: exactly one wins.
      const raced = await oauthStates.issue('binding-1', '/x');
      const outcomes = await Promise.all(Array.from({ length: 10 }, () => oauthStates.consume(raced, 'binding-1')));
      expect(outcomes.filter((outcome) => outcome.ok)).toHaveLength(1);
      // What the flow needs back at its callback comes back with the state.
      const withData = await oauthStates.issue('binding-1', '/y', { flow: 'app', nonce: 'n-1' });
      expect(await oauthStates.consume(withData, 'binding-1')).toEqual({
        ok: true,
        returnTo: '/y',
        data: { flow: 'app', nonce: 'n-1' },
      });
    });

    if (kind === 'redis') {
      it('keeps no token in clear, and a ciphertext moved to another record does not decrypt', async () => {
        const { sessions, connections, dump } = await make();
        const [a, b] = [sessionKey('user_e'), sessionKey('user_f')];
        const first = record('user_e');
        await sessions.set(a, first);
        await sessions.set(b, record('user_f'));
        const connection = {
          platformUserId: 'user_p',
          platformToken: 'user_token_connected_0123456789',
          connectedAt: Date.now(),
          lastUsedAt: Date.now(),
        };
        await connections.set('user_e', connection);
        const stored = await dump();
        expect(stored.some(([, value]) => value.includes(first.platformToken))).toBe(false);
        expect(stored.some(([, value]) => value.includes(connection.platformToken))).toBe(false);
        expect(stored.every(([key]) => key.startsWith('ofg-test-'))).toBe(true);
        // Every key of a user carries the user's hash tag.
        expect(
          stored
            .filter(([key]) => key.includes(userTag('user_e')))
            .every(([key]) => key.includes(`{u:${userTag('user_e')}}`)),
        ).toBe(true);

        const redis = createRedisClient({ connection: SHARED_REDIS, commandTimeoutMs: 1_000, logger, role: 'test' });
        await redis.connect();
        track(() => redis.disconnect());
        const keyOf = (session: string) => stored.find(([key]) => key.endsWith(`:s:${session.split('.')[1]}`))![0];
        const fromA = JSON.parse((await redis.get(keyOf(a)))!) as { token: string; platformToken: string };
        const atB = JSON.parse((await redis.get(keyOf(b)))!) as Record<string, unknown>;
        const moved = { ...atB, token: fromA.token, platformToken: fromA.platformToken };
        await redis.set(keyOf(b), JSON.stringify(moved), 'KEEPTTL');
        await expect(sessions.get(b)).rejects.toThrow(/could not be decrypted/);
      });

      it('reads a session and a bank connection in the previous version’s shape, and writes what that version reads', async () => {
        const { sessions, connections, dump } = await make();
        const key = sessionKey('user_r');
        const session = record('user_r');
        const connection = {
          platformUserId: 'user_p',
          platformToken: 'user_token_rolling_0123456789',
          connectedAt: Date.now(),
          lastUsedAt: Date.now(),
        };
        await sessions.set(key, session);
        await connections.set('user_r', connection);
        const redis = createRedisClient({ connection: SHARED_REDIS, commandTimeoutMs: 1_000, logger, role: 'test' });
        await redis.connect();
        track(() => redis.disconnect());
        for (const [redisKey, value] of await dump()) {
          const stored = JSON.parse(value) as Record<string, unknown>;
          if (!('platformToken' in stored)) continue;
          // What this version writes, the previous one reads: its own field holds the same ciphertext.
          expect(stored.token).toBe(stored.platformToken);
          // The previous version's shape: the same record without the new field.
          const { platformToken: _new, ...previous } = stored;
          await redis.set(redisKey, JSON.stringify(previous), 'KEEPTTL');
        }
        expect((await sessions.get(key))?.platformToken).toBe(session.platformToken);
        expect((await connections.get('user_r'))?.platformToken).toBe(connection.platformToken);
      });
    }
  });
}
