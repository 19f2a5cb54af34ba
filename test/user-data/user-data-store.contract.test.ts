import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { createLogger } from '@open-finance-gateway/common/logger';
import { createTokenCipher, type TokenKey } from '../../src/auth/token-cipher.js';
import { createRedisClient, type RedisClient } from '../../src/redis/redis-client.js';
import { KEPT_DATA_MARK, sessionEndedChannel, taggedKeys, userEventsKey, userTag } from '../../src/redis/redis-keys.js';
import { createMemoryUserDataStore } from '../../src/user-data/memory-user-data-store.js';
import { createShapeCensus } from '../../src/user-data/redis-shape-census.js';
import { createRedisUserDataStore } from '../../src/user-data/redis-user-data-store.js';
import {
  FIELD,
  LOG_KEPT,
  TOPIC,
  topicOfField,
  type UserDataLimits,
  type UserDataStore,
} from '../../src/user-data/user-data-store.js';
import { track } from '../support/leftovers.js';
import { dumpKeys, instanceRedis, SHARED_REDIS, testPrefix, testRedis } from '../support/redis.js';

const logger = createLogger({ level: 'silent' });
const MAX_AGE_MS = 60_000;
const RETENTION_MS = 2 * MAX_AGE_MS;
const LIMITS: UserDataLimits = {
  maxAgeMs: MAX_AGE_MS,
  retentionMs: RETENTION_MS,
  userMaxBytes: 64 * 1024,
  budgetBytes: 16 * 1024 * 1024,
};

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

const user = () => `user_${randomBytes(6).toString('hex')}`;
/** `length` characters that do not compress (Redis deflates fields; the caps count what is stored). */
const noise = (length: number) => randomBytes(length).toString('base64').slice(0, length);

/** Reads one field and, when it is absent, writes `value` under the stamp of its topic. */
async function readThrough(store: UserDataStore, userId: string, field: string, value: string) {
  const snap = await store.read(userId, [field], [topicOfField(field)]);
  const kept = snap.values.get(field);
  if (kept) return { hit: true, value: kept.value };
  return { hit: false, outcome: (await store.apply(userId, snap, { put: [[field, value]] })).outcome };
}

const valueOf = async (store: UserDataStore, userId: string, field: string) =>
  (await store.read(userId, [field], [])).values.get(field)?.value;

const PAGE_OF_AN_EARLIER_VERSION = `${TOPIC.ledger}|0123456789abcdef`;

describe.each([
  ['memory', async () => memorySetup()],
  ['redis', async () => redisSetup()],
] as const)('the user-data store (%s)', (_name, setup) => {
  it('answers a kept field exactly as written, with its write time, on any instance; its age is the reader\u2019s to judge', async () => {
    const { store, other, advance } = await setup();
    const u = user();
    const value = JSON.stringify([{ _id: 'acc_1', name: 'Caf\u00e9 "\u014ctautahi"' }]);
    const first = await store.read(u, [FIELD.accounts], [TOPIC.accounts]);
    expect(await store.apply(u, first, { put: [[FIELD.accounts, value]] })).toEqual({ outcome: 'kept' });
    expect((await other.read(u, [FIELD.accounts], [])).values.get(FIELD.accounts)).toEqual({
      value,
      writtenAt: first.at,
    });
    for (const field of [FIELD.me, FIELD.account('acc_1'), FIELD.ledgerMeta])
      expect(await valueOf(other, u, field)).toBeUndefined();
    expect(await valueOf(store, user(), FIELD.accounts)).toBeUndefined();
    advance(RETENTION_MS - 1);
    expect(await valueOf(other, u, FIELD.accounts)).toBe(value);
  });

  it('tells when the oldest answer younger than the maximum age was written, without creating or touching the user', async () => {
    const { store, other, advance, dump } = await setup();
    const u = user();
    expect(await other.oldestKept(u)).toBeUndefined();
    expect(await dump()).toEqual([]); // asking created nothing
    const first = await store.read(u, [FIELD.me], [TOPIC.me]);
    await store.apply(u, first, { put: [[FIELD.me, '{"_id":"user_1"}']] });
    advance(1_000);
    await readThrough(store, u, FIELD.accounts, '[]');
    await readThrough(store, u, FIELD.refresh, '{"requestedAt":1}'); // a note, not an answer
    expect(await other.oldestKept(u)).toBe(first.at);
    await other.drop(u, [TOPIC.account('acc_1'), TOPIC.accounts]); // drops the list, keeps `me`
    expect(await other.oldestKept(u)).toBe(first.at);
    advance(MAX_AGE_MS - 1_000);
    expect(await other.oldestKept(u)).toBeUndefined(); // past its maximum age
    await store.apply(u, await store.read(u, [], []), { put: [[FIELD.accounts, '[]']] });
    expect(await other.oldestKept(u)).toBeDefined();
    await other.deleteUser(u);
    expect(await store.oldestKept(u)).toBeUndefined();
  });

  it('never applies a mutation based on a read older than a change of its topics (compare-and-set on the generations)', async () => {
    const { store, other } = await setup();
    const u = user();
    const before = await store.read(u, [FIELD.account('acc_1')], [TOPIC.account('acc_1')]);
    await other.drop(u, [TOPIC.account('acc_1')]);
    expect(await store.apply(u, before, { put: [[FIELD.account('acc_1'), '{"balance":1}']] })).toEqual({
      outcome: 'stale',
    });
    expect(await valueOf(store, u, FIELD.account('acc_1'))).toBeUndefined();
    // A mutation that bumps a topic makes earlier reads of it stale too, as a drop does.
    const racing = await store.read(u, [FIELD.accounts], [TOPIC.accounts]);
    const bumping = await other.read(u, [FIELD.accounts], [TOPIC.accounts]);
    expect(await other.apply(u, bumping, { put: [[FIELD.accounts, '[1]']], bump: [TOPIC.accounts] })).toMatchObject({
      outcome: 'kept',
    });
    expect(await store.apply(u, racing, { put: [[FIELD.accounts, '[0]']] })).toEqual({ outcome: 'stale' });
    expect(await valueOf(store, u, FIELD.accounts)).toBe('[1]');
    // A read started after the change writes back; one of another topic was never affected.
    const after = await store.read(u, [FIELD.account('acc_1')], [TOPIC.account('acc_1')]);
    expect(await store.apply(u, after, { put: [[FIELD.account('acc_1'), '{"balance":2}']] })).toEqual({
      outcome: 'kept',
    });
    expect(await valueOf(other, u, FIELD.account('acc_1'))).toBe('{"balance":2}');
  });

  it('a bump drops the earlier version\u2019s pages of its topic but keeps the ledger; a drop takes the topic whole', async () => {
    const { store, other } = await setup();
    const u = user();
    const fields = [FIELD.ledgerMeta, FIELD.block(0), FIELD.log(1), PAGE_OF_AN_EARLIER_VERSION, FIELD.me];
    const snap = await store.read(u, fields, [TOPIC.ledger]);
    await store.apply(u, snap, {
      put: [
        [FIELD.ledgerMeta, '{"meta":1}'],
        [FIELD.block(0), '[]'],
        [PAGE_OF_AN_EARLIER_VERSION, '{"items":[]}'],
        [FIELD.me, '{}'],
      ],
      log: '{"changes":1}',
    });
    const kept = async () => {
      const read = await other.read(u, fields, []);
      return fields.filter((field) => read.values.has(field));
    };
    expect(await kept()).toEqual(fields);
    const again = await store.read(u, [], [TOPIC.ledger]);
    expect(await store.apply(u, again, { bump: [TOPIC.ledger] })).toMatchObject({ outcome: 'kept' });
    expect(await kept()).toEqual([FIELD.ledgerMeta, FIELD.block(0), FIELD.log(1), FIELD.me]);
    await other.drop(u, [TOPIC.ledger]);
    expect(await kept()).toEqual([FIELD.me]);
  });

  it('appends change log batches at increasing positions, and keeps only the newest', async () => {
    const { store, other } = await setup();
    const u = user();
    const positions: number[] = [];
    for (let n = 1; n <= LOG_KEPT + 3; n += 1) {
      const snap = await store.read(u, [], [TOPIC.ledger]);
      const done = await store.apply(u, snap, { log: `{"n":${n}}` });
      positions.push(done.outcome === 'kept' ? done.position! : -1);
    }
    expect(positions).toEqual(Array.from({ length: LOG_KEPT + 3 }, (_, index) => index + 1));
    const tail = await other.readLog(u, LOG_KEPT, 10);
    expect(tail).toEqual({
      head: LOG_KEPT + 3,
      oldest: 4,
      entries: [1, 2, 3].map((n) => ({ position: LOG_KEPT + n, value: `{"n":${LOG_KEPT + n}}` })),
    });
    // The oldest batches fell out: a reader behind them finds a gap (its cursor has expired).
    expect((await other.readLog(u, 0, 3)).entries).toEqual([]);
    expect(await other.readLog(user(), 0, 5)).toEqual({ head: 0, oldest: 1, entries: [] });
  });

  it('deleting a user drops everything and ends their reads in flight', async () => {
    const { store, other, dump } = await setup();
    const u = user();
    const bystander = user();
    await readThrough(store, bystander, FIELD.me, '{"_id":"user_b"}');
    for (const field of [FIELD.me, FIELD.accounts, FIELD.ledgerMeta])
      await readThrough(store, u, field, '{"secret":"x"}');
    const inFlight = await store.read(u, [FIELD.accounts], [TOPIC.accounts]);
    await other.deleteUser(u);
    expect(await store.apply(u, inFlight, { put: [[FIELD.accounts, '[]']] })).toEqual({ outcome: 'stale' });
    expect(await valueOf(store, u, FIELD.me)).toBeUndefined();
    expect(await valueOf(store, bystander, FIELD.me)).toBe('{"_id":"user_b"}');
    await other.deleteUser(u);
    // Nothing of theirs is left on Redis: no key under their tag, no mention in the index.
    const left = await dump();
    const tag = userTag(u);
    expect(left.filter(([key, value]) => key.includes(tag) || value.includes(tag))).toEqual([]);
  });

  it('caps each user: a field over the cap is not kept; an answer makes room, the ledger is told it is over', async () => {
    const { reopen, evictions } = await setup();
    const store = reopen({ userMaxBytes: 4_000 });
    const u = user();
    expect(await readThrough(store, u, FIELD.accounts, noise(5_000))).toEqual({ hit: false, outcome: 'too-large' });
    for (const id of ['acc_1', 'acc_2', 'acc_3']) await readThrough(store, u, FIELD.account(id), noise(700));
    const ledger = await store.read(u, [], [TOPIC.ledger]);
    expect(await store.apply(u, ledger, { put: [[FIELD.block(0), noise(2_500)]], overCap: 'refuse' })).toEqual({
      outcome: 'over-cap',
    });
    expect(await valueOf(store, u, FIELD.account('acc_1'))).toBeDefined(); // refused: nothing changed
    const last = noise(2_500);
    expect(await readThrough(store, u, FIELD.me, last)).toMatchObject({ outcome: 'kept' });
    expect(evictions.filter((e) => e.reason === 'user-cap').length).toBeGreaterThan(0);
    // The others went to make room; the newest is kept.
    expect(await valueOf(store, u, FIELD.account('acc_1'))).toBeUndefined();
    expect(await valueOf(store, u, FIELD.me)).toBe(last);
  });

  it('keeps the whole store within its budget by dropping the least recently written users whole', async () => {
    const { reopen, evictions } = await setup();
    const store = reopen({ budgetBytes: 7_000 });
    const users = [user(), user(), user(), user()];
    const [me, list] = [noise(1_000), noise(1_000)];
    for (const u of users) {
      await readThrough(store, u, FIELD.me, me);
      await readThrough(store, u, FIELD.accounts, list);
    }
    expect(evictions.filter((e) => e.reason === 'budget').length).toBeGreaterThan(0);
    // The first user went first; the last is still whole.
    expect(await valueOf(store, users[0]!, FIELD.me)).toBeUndefined();
    expect(await valueOf(store, users[3]!, FIELD.me)).toBe(me);
    expect(await valueOf(store, users[3]!, FIELD.accounts)).toBe(list);
    // An evicted user is read again and kept again, correctly.
    expect(await readThrough(store, users[0]!, FIELD.me, 'n'.repeat(10))).toMatchObject({ outcome: 'kept' });
    expect(await valueOf(store, users[0]!, FIELD.me)).toBe('n'.repeat(10));
  });
});

describe('whether every instance keeps the store current', () => {
  it('in memory: always (one instance, one version)', async () => {
    expect(await memorySetup().store.trust()).toEqual({ mixed: false, since: 0 });
  });

  it('on Redis: not while an instance that does not announce the shape listens, and what was kept before is read anew after', async () => {
    const keyPrefix = testPrefix();
    let now = 1_000_000;
    const open = async () => {
      const { redis, listener } = await instanceRedis(SHARED_REDIS);
      // This version's instance: its listener is on the channel every instance follows, and it announces the shape.
      await listener.subscribe(sessionEndedChannel(keyPrefix));
      const census = createShapeCensus({ redis, listener, keyPrefix, clock: () => now, logger });
      await census.announce();
      return census;
    };
    const census = await open();
    expect(await census.trust()).toEqual({ mixed: false, since: 0 });
    // An instance of an earlier version starts: it follows session endings, and announces nothing.
    const earlier = testRedis();
    await earlier.subscribe(sessionEndedChannel(keyPrefix));
    now += 1_000; // past the census's second
    expect(await census.trust()).toEqual({ mixed: true, since: now });
    const mixedAt = now;
    await earlier.quit();
    now += 1_000;
    const after = await (await open()).trust();
    expect(after).toEqual({ mixed: false, since: mixedAt });
  });
});

describe('how long a user\u2019s record lasts', () => {
  it('in memory: twice the maximum age after its last write', async () => {
    const { store, advance } = memorySetup();
    const u = user();
    await readThrough(store, u, FIELD.me, '{"_id":"user_1"}');
    advance(RETENTION_MS - 1);
    await readThrough(store, u, FIELD.accounts, '[]'); // a write: its time starts again
    advance(RETENTION_MS - 1);
    expect(await valueOf(store, u, FIELD.me)).toBe('{"_id":"user_1"}');
    advance(1);
    expect(await valueOf(store, u, FIELD.me)).toBeUndefined();
  });

  it('on Redis: the hash expires twice the maximum age after its last write', async () => {
    const { store, redis, keyPrefix } = await redisSetup();
    const u = user();
    await readThrough(store, u, FIELD.me, '{"_id":"user_1"}');
    const ttl = await redis.pttl(`${taggedKeys(keyPrefix, userTag(u))}:user-data`);
    expect(ttl).toBeGreaterThan(RETENTION_MS - 5_000);
    expect(ttl).toBeLessThanOrEqual(RETENTION_MS);
  });
});

describe('the user-data store on Redis, at rest', () => {
  it('holds fields encrypted under TOKEN_ENCRYPTION_KEYS, and reads them across a key rotation', async () => {
    const { store, dump, reopen } = await redisSetup();
    const u = user();
    const value = JSON.stringify({ _id: 'acc_1', name: 'Everyday', balance: { current: 1234.56 } });
    await readThrough(store, u, FIELD.account('acc_1'), value);
    const snap = await store.read(u, [], [TOPIC.ledger]);
    await store.apply(u, snap, {
      put: [[FIELD.block(0), '[{"_id":"trans_1","date":"2026-11-01T00:00:00.000Z"}]']],
      log: '["trans_1"]',
    });
    const held = (await dump()).map(([key, text]) => `${key} ${text}`).join('\n');
    for (const secret of ['Everyday', 'acc_1', 'trans_1', '2026-11', u]) expect(held).not.toContain(secret);
    // Rotation: a new first key encrypts, the old one still decrypts.
    const key2: TokenKey = { id: 'k2', key: randomBytes(32) };
    const rotated = reopen({}, [key2, key1]);
    expect(await valueOf(rotated, u, FIELD.account('acc_1'))).toBe(value);
    await rotated.apply(u, await rotated.read(u, [], [TOPIC.accounts]), { put: [[FIELD.accounts, '["new"]']] });
    expect((await dump()).some(([, text]) => text.includes('.v1.k2.'))).toBe(true);
    // Once the old key is removed, what it encrypted is absent (read again), not an error.
    const onlyNew = reopen({}, [key2]);
    expect(await valueOf(onlyNew, u, FIELD.account('acc_1'))).toBeUndefined();
    expect(await valueOf(onlyNew, u, FIELD.accounts)).toBe('["new"]');
  });

  it('serves a value moved to another field or user as absent, on an instance that has read both fields', async () => {
    const { store, redis, keyPrefix } = await redisSetup();
    const [u, v] = [user(), user()];
    const hash = (userId: string) => `${taggedKeys(keyPrefix, userTag(userId))}:user-data`;
    const stored = (userId: string, field: string) => redis.hget(hash(userId), `e:${field}`);
    for (const [userId, field, value] of [
      [u, FIELD.account('acc_1'), '{"name":"one"}'],
      [u, FIELD.account('acc_2'), '{"name":"two"}'],
      [v, FIELD.account('acc_1'), '{"name":"other"}'],
    ] as const) {
      await readThrough(store, userId, field, value);
      expect(await valueOf(store, userId, field)).toBe(value);
    }
    // Another field's value, or another user's, under a field this instance has read before:
    // each is bound to its user, field and write time, so it fails to decrypt.
    await redis.hset(hash(u), `e:${FIELD.account('acc_2')}`, (await stored(u, FIELD.account('acc_1')))!);
    expect(await valueOf(store, u, FIELD.account('acc_2'))).toBeUndefined();
    await redis.hset(hash(v), `e:${FIELD.account('acc_1')}`, (await stored(u, FIELD.account('acc_1')))!);
    expect(await valueOf(store, v, FIELD.account('acc_1'))).toBeUndefined();
    expect(await valueOf(store, u, FIELD.account('acc_1'))).toBe('{"name":"one"}');
  });

  it('starts a user\u2019s record again when an event in their stream was stored by an earlier version, which does not keep it current', async () => {
    const { store, redis, keyPrefix } = await redisSetup();
    const u = user();
    const events = userEventsKey(keyPrefix, u);
    await redis.xadd(events, '*', 'e', '{"type":"PAYMENT"}', KEPT_DATA_MARK, '1'); // this version's, before
    await readThrough(store, u, FIELD.accounts, '[{"_id":"acc_1","balance":1}]');
    const inFlight = await store.read(u, [FIELD.accounts], [TOPIC.accounts]);
    // This version appends with the mark: the record stands.
    await redis.xadd(events, '*', 'e', '{"type":"ACCOUNT"}', KEPT_DATA_MARK, '1');
    expect(await valueOf(store, u, FIELD.accounts)).toBe('[{"_id":"acc_1","balance":1}]');
    // An earlier version acknowledged an ACCOUNT UPDATE without changing this record.
    await redis.xadd(events, '*', 'e', '{"type":"ACCOUNT","code":"UPDATE"}');
    expect(await valueOf(store, u, FIELD.accounts)).toBeUndefined();
    expect(await store.apply(u, inFlight, { put: [[FIELD.accounts, '[]']] })).toEqual({ outcome: 'stale' });
    // Once seen, it is not seen again: the new record is kept and served.
    expect(await readThrough(store, u, FIELD.accounts, '[{"_id":"acc_1","balance":2}]')).toMatchObject({
      outcome: 'kept',
    });
    expect(await valueOf(store, u, FIELD.accounts)).toBe('[{"_id":"acc_1","balance":2}]');
  });
});
