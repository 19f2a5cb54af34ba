import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { createLogger } from '@open-finance-gateway/common/logger';
import { createTokenCipher, type TokenKey } from '../../src/auth/token-cipher.js';
import { createRedisClient, type RedisClient } from '../../src/redis/redis-client.js';
import { taggedKeys, userTag } from '../../src/redis/redis-keys.js';
import { createMemoryUserDataStore } from '../../src/user-data/memory-user-data-store.js';
import { createRedisUserDataStore } from '../../src/user-data/redis-user-data-store.js';
import {
  fieldOf,
  type UserDataEntry,
  type UserDataLimits,
  type UserDataStore,
} from '../../src/user-data/user-data-store.js';
import { track } from '../support/leftovers.js';
import { dumpKeys, SHARED_REDIS, testPrefix } from '../support/redis.js';

const logger = createLogger({ level: 'silent' });
const MAX_AGE_MS = 60_000;
const LIMITS: UserDataLimits = { maxAgeMs: MAX_AGE_MS, userMaxBytes: 64 * 1024, budgetBytes: 16 * 1024 * 1024 };

interface Setup {
  store: UserDataStore;
  /** Another instance's handle on the same data (Redis); the same store in memory. */
  other: UserDataStore;
  advance(ms: number): void;
  evictions: Array<{ reason: string; users: number }>;
  /** Every Redis key and its text (empty in memory). */
  dump(): Promise<Array<[string, string]>>;
  /** A store over the same data with other limits or keys. */
  reopen(limits: Partial<UserDataLimits>, keys?: TokenKey[]): UserDataStore;
}

const key1: TokenKey = { id: 'k1', key: randomBytes(32) };

function memorySetup(): Setup {
  let now = Date.now();
  const evictions: Setup['evictions'] = [];
  // Memory has no other handle on the same data: reopening starts an empty store.
  const open = (changed: Partial<UserDataLimits> = {}) =>
    createMemoryUserDataStore({
      ...LIMITS,
      ...changed,
      clock: () => now,
      onEviction: (reason, users) => evictions.push({ reason, users }),
    });
  const store = open();
  return { store, other: store, advance: (ms) => (now += ms), evictions, dump: async () => [], reopen: open };
}

async function redisSetup(): Promise<Setup & { redis: RedisClient; keyPrefix: string }> {
  const keyPrefix = testPrefix();
  const redis = createRedisClient({ connection: SHARED_REDIS, commandTimeoutMs: 1_000, logger, role: 'test' });
  await redis.connect();
  track(() => redis.disconnect());
  let now = Date.now();
  const evictions: Setup['evictions'] = [];
  const open = (changed: Partial<UserDataLimits> = {}, keys: TokenKey[] = [key1]) =>
    createRedisUserDataStore({
      ...LIMITS,
      ...changed,
      redis,
      keyPrefix,
      cipher: createTokenCipher(keys),
      clock: () => now,
      onEviction: (reason, users) => evictions.push({ reason, users }),
    });
  return {
    redis,
    keyPrefix,
    store: open(),
    other: open(),
    advance: (ms) => (now += ms),
    evictions,
    dump: () => dumpKeys(keyPrefix),
    reopen: open,
  };
}

const ME: UserDataEntry = { kind: 'me' };
const ACCOUNTS: UserDataEntry = { kind: 'accounts' };
const account = (accountId: string): UserDataEntry => ({ kind: 'account', accountId });
const page = (accountId: string | undefined, cursor: string | null = null): UserDataEntry => ({
  kind: 'transactions',
  accountId,
  start: '2026-08-01T00:00:00.000Z',
  end: undefined,
  cursor,
});

/** Reads the entry and, on a miss, writes `value` back with the stamp the read gave. */
async function readThrough(store: UserDataStore, userId: string, entry: UserDataEntry, value: string) {
  const lookup = await store.read(userId, entry);
  if (lookup.value !== undefined) return { hit: true, value: lookup.value };
  return { hit: false, outcome: await store.write(userId, entry, value, lookup) };
}

const user = () => `user_${randomBytes(6).toString('hex')}`;
/** `length` characters that do not compress (Redis deflates entries; the caps count what is stored). */
const noise = (length: number) => randomBytes(length).toString('base64').slice(0, length);

describe.each([
  ['memory', async () => memorySetup()],
  ['redis', async () => redisSetup()],
] as const)('the user-data store (%s)', (_name, setup) => {
  it('answers a kept entry exactly as written, on any instance, until its maximum age', async () => {
    const { store, other, advance } = await setup();
    const u = user();
    const value = JSON.stringify({ items: [{ _id: 'trans_1', description: 'Café "Ōtautahi"' }], next: 'c2' });
    expect(await readThrough(store, u, page('acc_1'), value)).toEqual({ hit: false, outcome: 'kept' });
    expect((await other.read(u, page('acc_1'))).value).toBe(value);
    // Another query (cursor, account, all accounts) is another entry.
    for (const entry of [page('acc_1', 'c2'), page('acc_2'), page(undefined), ME])
      expect((await other.read(u, entry)).value).toBeUndefined();
    expect((await store.read(user(), page('acc_1'))).value).toBeUndefined();
    advance(MAX_AGE_MS - 1);
    expect((await other.read(u, page('acc_1'))).value).toBe(value);
    advance(1);
    expect((await other.read(u, page('acc_1'))).value).toBeUndefined();
  });

  it('counts an answer\u2019s age from before its platform read, so a slow read never claims to be fresher', async () => {
    const { store, advance } = await setup();
    const u = user();
    const lookup = await store.read(u, ME);
    advance(MAX_AGE_MS / 2); // the platform took its time
    expect(await store.write(u, ME, '{"_id":"user_1"}', lookup)).toBe('kept');
    advance(MAX_AGE_MS / 2 - 1);
    expect((await store.read(u, ME)).value).toBe('{"_id":"user_1"}');
    advance(1);
    expect((await store.read(u, ME)).value).toBeUndefined();
  });

  it('tells when the oldest answer still kept was written, without creating or touching the user', async () => {
    const { store, other, advance, dump } = await setup();
    const u = user();
    expect(await other.oldestKept(u)).toBeUndefined();
    expect(await dump()).toEqual([]); // asking created nothing
    const first = await store.read(u, ME);
    await store.write(u, ME, '{"_id":"user_1"}', first);
    advance(1_000);
    await readThrough(store, u, ACCOUNTS, '[]');
    await readThrough(store, u, { kind: 'refresh' }, '{"requestedAt":1}'); // a note, not an answer
    expect(await other.oldestKept(u)).toBe(first.at);
    await other.change(u, [{ kind: 'account', accountId: 'acc_1' }]); // drops the list, keeps `me`
    expect(await other.oldestKept(u)).toBe(first.at);
    advance(MAX_AGE_MS - 1_000);
    expect(await other.oldestKept(u)).toBeUndefined(); // past its maximum age
    await readThrough(store, u, ACCOUNTS, '[]');
    expect(await other.oldestKept(u)).toBeDefined();
    await other.deleteUser(u);
    expect(await store.oldestKept(u)).toBeUndefined();
  });

  it('never writes back a read that started before a change (compare-and-set on the generation)', async () => {
    const { store, other } = await setup();
    const u = user();
    const before = await store.read(u, account('acc_1'));
    await other.change(u, [{ kind: 'account', accountId: 'acc_1' }]);
    expect(await store.write(u, account('acc_1'), '{"balance":1}', before)).toBe('stale');
    expect((await store.read(u, account('acc_1'))).value).toBeUndefined();
    // A read started after the change writes back.
    const after = await store.read(u, account('acc_1'));
    expect(await store.write(u, account('acc_1'), '{"balance":2}', after)).toBe('kept');
    expect((await other.read(u, account('acc_1'))).value).toBe('{"balance":2}');
  });

  it('a change drops exactly what it names: the account and the list, or the account\u2019s pages and all-accounts pages', async () => {
    const { store, other } = await setup();
    const u = user();
    const entries = [ME, ACCOUNTS, account('acc_1'), account('acc_2'), page('acc_1'), page('acc_2'), page(undefined)];
    const fill = async () => {
      for (const entry of entries) await readThrough(store, u, entry, JSON.stringify(entry));
    };
    const kept = async () => {
      const out: UserDataEntry[] = [];
      for (const entry of entries) if ((await other.read(u, entry)).value !== undefined) out.push(entry);
      return out;
    };
    await fill();
    expect(await kept()).toEqual(entries);
    await store.change(u, [{ kind: 'account', accountId: 'acc_1' }]);
    expect(await kept()).toEqual([ME, account('acc_2'), page('acc_1'), page('acc_2'), page(undefined)]);
    await fill();
    await store.change(u, [{ kind: 'transactions', accountId: 'acc_1' }]);
    expect(await kept()).toEqual([ME, ACCOUNTS, account('acc_1'), account('acc_2'), page('acc_2')]);
    // A read of another topic that was in flight across the change still writes back.
    const meanwhile = await store.read(u, page('acc_2', 'c9'));
    await store.change(u, [{ kind: 'transactions', accountId: 'acc_1' }]);
    expect(await store.write(u, page('acc_2', 'c9'), '[]', meanwhile)).toBe('kept');
  });

  it('deleting a user drops everything and ends their reads in flight', async () => {
    const { store, other, dump } = await setup();
    const u = user();
    const bystander = user();
    await readThrough(store, bystander, ME, '{"_id":"user_b"}');
    for (const entry of [ME, ACCOUNTS, page(undefined)]) await readThrough(store, u, entry, '{"secret":"x"}');
    const inFlight = await store.read(u, ACCOUNTS);
    await other.deleteUser(u);
    expect(await store.write(u, ACCOUNTS, '[]', inFlight)).toBe('stale');
    expect((await store.read(u, ME)).value).toBeUndefined();
    expect((await store.read(bystander, ME)).value).toBe('{"_id":"user_b"}');
    await other.deleteUser(u);
    // Nothing of theirs is left on Redis: no key under their tag, no mention in the index.
    const left = await dump();
    const tag = userTag(u);
    // The read above made a new, empty epoch; deleting again leaves nothing.
    expect(left.filter(([key, value]) => key.includes(tag) || value.includes(tag))).toEqual([]);
  });

  it('caps each user: an entry over the cap is not kept, and the user\u2019s other entries make room for a new one', async () => {
    const { reopen, evictions } = await setup();
    const store = reopen({ userMaxBytes: 4_000 });
    const u = user();
    expect(await readThrough(store, u, page('acc_1'), noise(5_000))).toEqual({ hit: false, outcome: 'too-large' });
    const pages = ['acc_1', 'acc_2', 'acc_3', 'acc_4', 'acc_5'];
    const last = noise(1_000);
    for (const id of pages)
      expect(await readThrough(store, u, page(id), id === 'acc_5' ? last : noise(1_000))).toMatchObject({
        outcome: 'kept',
      });
    expect(evictions.filter((e) => e.reason === 'user-cap').length).toBeGreaterThan(0);
    // The first went to make room; the newest is kept.
    expect((await store.read(u, page('acc_1'))).value).toBeUndefined();
    expect((await store.read(u, page('acc_5'))).value).toBe(last);
  });

  it('keeps the whole store within its budget by dropping the least recently written users whole', async () => {
    const { reopen, evictions } = await setup();
    const store = reopen({ budgetBytes: 7_000 });
    const users = [user(), user(), user(), user()];
    const [me, list] = [noise(1_000), noise(1_000)];
    for (const u of users) {
      await readThrough(store, u, ME, me);
      await readThrough(store, u, ACCOUNTS, list);
    }
    expect(evictions.filter((e) => e.reason === 'budget').length).toBeGreaterThan(0);
    // The first user went first; the last is still whole.
    expect((await store.read(users[0]!, ME)).value).toBeUndefined();
    expect((await store.read(users[3]!, ME)).value).toBe(me);
    expect((await store.read(users[3]!, ACCOUNTS)).value).toBe(list);
    // An evicted user is read again and kept again, correctly.
    expect(await readThrough(store, users[0]!, ME, 'n'.repeat(10))).toMatchObject({ outcome: 'kept' });
    expect((await store.read(users[0]!, ME)).value).toBe('n'.repeat(10));
  });
});

describe('the user-data store on Redis, at rest', () => {
  it('holds entries encrypted under TOKEN_ENCRYPTION_KEYS, and reads them across a key rotation', async () => {
    const { store, dump, reopen } = await redisSetup();
    const u = user();
    const value = JSON.stringify({ _id: 'acc_1', name: 'Everyday', balance: { current: 1234.56 } });
    await readThrough(store, u, account('acc_1'), value);
    const held = (await dump()).map(([key, text]) => `${key} ${text}`).join('\n');
    expect(held).not.toContain('Everyday');
    expect(held).not.toContain('acc_1'); // account ids are digests in field names
    expect(held).not.toContain(u);
    // Rotation: a new first key encrypts, the old one still decrypts.
    const key2: TokenKey = { id: 'k2', key: randomBytes(32) };
    const rotated = reopen({}, [key2, key1]);
    expect((await rotated.read(u, account('acc_1'))).value).toBe(value);
    const lookup = await rotated.read(u, ACCOUNTS);
    await rotated.write(u, ACCOUNTS, '["new"]', lookup);
    expect((await dump()).some(([, text]) => text.includes('.v1.k2.'))).toBe(true);
    // Once the old key is removed, what it encrypted is a miss (read again), not an error.
    const onlyNew = reopen({}, [key2]);
    expect((await onlyNew.read(u, account('acc_1'))).value).toBeUndefined();
    expect((await onlyNew.read(u, ACCOUNTS)).value).toBe('["new"]');
  });

  it('serves a value moved to another entry or user as a miss, on an instance that has read both entries', async () => {
    const { store, redis, keyPrefix, advance } = await redisSetup();
    const [u, v] = [user(), user()];
    const hash = (userId: string) => `${taggedKeys(keyPrefix, userTag(userId))}:user-data`;
    const stored = (userId: string, entry: UserDataEntry) => redis.hget(hash(userId), `e:${fieldOf(entry)}`);
    for (const [userId, entry, value] of [
      [u, account('acc_1'), '{"name":"one"}'],
      [u, account('acc_2'), '{"name":"two"}'],
      [v, account('acc_1'), '{"name":"other"}'],
    ] as const) {
      await readThrough(store, userId, entry, value);
      expect((await store.read(userId, entry)).value).toBe(value);
    }
    // Another entry's value, or another user's, under an entry this instance has read before:
    // each is bound to its user, entry and write time, so it fails to decrypt.
    await redis.hset(hash(u), `e:${fieldOf(account('acc_2'))}`, (await stored(u, account('acc_1')))!);
    expect((await store.read(u, account('acc_2'))).value).toBeUndefined();
    await redis.hset(hash(v), `e:${fieldOf(account('acc_1'))}`, (await stored(u, account('acc_1')))!);
    expect((await store.read(v, account('acc_1'))).value).toBeUndefined();
    // The unmoved value is still served, until its maximum age.
    expect((await store.read(u, account('acc_1'))).value).toBe('{"name":"one"}');
    advance(MAX_AGE_MS);
    expect((await store.read(u, account('acc_1'))).value).toBeUndefined();
  });
});
