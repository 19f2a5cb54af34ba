import { deflateRawSync, inflateRawSync } from 'node:zlib';
import type { Clock } from '@open-finance-gateway/common/clock';
import { randomToken } from '@open-finance-gateway/common/ids';
import { storeCall, type RedisClient } from '../redis/redis-client.js';
import { taggedKeys, userEventsKey, userTag } from '../redis/redis-keys.js';
import type { ReplicaWait } from '../redis/redis-replica-wait.js';
import { APPLY_SCRIPT, DROP_SCRIPT, INDEX_SCRIPT, READ_SCRIPT, UNINDEX_SCRIPT } from './redis-user-data-scripts.js';
import {
  FIELD,
  isAnswerField,
  LOG_KEPT,
  type ApplyOutcome,
  type Kept,
  type KeptDataTrust,
  type UserDataLimits,
  type UserDataStore,
  type UserDataStoreEvents,
} from './user-data-store.js';

/** Encrypts fields at rest (the token cipher: the first key encrypts, every key decrypts). */
export interface EntryCipher {
  encrypt(text: string, binding: string): string;
  decrypt(ciphertext: string, binding: string): string;
}

export interface RedisUserDataStoreOptions extends UserDataLimits, UserDataStoreEvents {
  redis: RedisClient;
  keyPrefix: string;
  cipher: EntryCipher;
  clock: Clock;
  /** A change is acknowledged (its webhook answered 200) only once replicas hold it. */
  waitForReplicas?: ReplicaWait;
  /** Which instances keep this shape (see redis-shape-census.ts); none: every one is taken to. */
  census?: { trust(): Promise<KeptDataTrust> };
}

type Args = Array<string | number>;
interface UserDataCommands {
  ofgUserDataRead(hash: string, log: string, ...args: Args): Promise<Array<string | number>>;
  ofgUserDataApply(hash: string, log: string, ...args: Args): Promise<[string, number, number, number]>;
  ofgUserDataDrop(hash: string, ...topics: string[]): Promise<number>;
  ofgUserDataIndex(lru: string, sizes: string, total: string, ...args: Args): Promise<number>;
  ofgUserDataUnindex(lru: string, sizes: string, total: string, ...tags: string[]): Promise<number>;
}

/** Most users dropped at once when the store is over its budget. */
const EVICTION_BATCH = 10;

/**
 * How a field is kept: deflated, then encrypted and bound to its user, field and write time. A
 * change log batch is bound to the log, not its position: the position is the script's to give.
 */
function fieldCodec(cipher: EntryCipher) {
  const binding = (userId: string, field: string, writtenAt: string) =>
    `user-data:${userId}:${field.startsWith(FIELD.log(0).slice(0, -1)) ? 'log' : field}:${writtenAt}`;
  return {
    decode(userId: string, field: string, stored: string | null | undefined): Kept | undefined {
      const dot = stored ? stored.indexOf('.') : -1;
      if (!stored || dot < 0) return undefined;
      const writtenAt = stored.slice(0, dot);
      try {
        const packed = cipher.decrypt(stored.slice(dot + 1), binding(userId, field, writtenAt));
        return { value: inflateRawSync(Buffer.from(packed, 'base64')).toString('utf8'), writtenAt: Number(writtenAt) };
      } catch {
        return undefined; // a key no longer configured, or a value not written for this field: absent
      }
    },
    encode(userId: string, field: string, value: string, at: number): string {
      // Compressed before it is encrypted (JSON shrinks about fivefold; ciphertext would not).
      const packed = deflateRawSync(Buffer.from(value, 'utf8')).toString('base64');
      return `${at}.${cipher.encrypt(packed, binding(userId, field, String(at)))}`;
    },
  };
}

/** Records a user's bytes and, past the budget, drops the least recently written users. */
function budgetKeeper(
  options: RedisUserDataStoreOptions,
  commands: UserDataCommands,
  index: readonly [string, string, string],
  hashOf: (tag: string) => string,
) {
  const { redis, clock } = options;
  return async (tag: string, bytes: number): Promise<void> => {
    const now = clock();
    let total = await storeCall(() => commands.ofgUserDataIndex(...index, tag, bytes, now, now - options.retentionMs));
    let evicted = 0;
    while (total > options.budgetBytes) {
      const oldest = (await storeCall(() => redis.zrange(index[0], '0', String(EVICTION_BATCH - 1)))).filter(
        (t) => t !== tag,
      );
      if (oldest.length === 0) break;
      for (const victim of oldest) await storeCall(() => redis.del(hashOf(victim)));
      total = await storeCall(() => commands.ofgUserDataUnindex(...index, ...oldest));
      evicted += oldest.length;
    }
    if (evicted > 0) options.onEviction?.('budget', evicted);
  };
}

/**
 * On Redis, shared by every instance: one hash per user under the user's tag (see the scripts),
 * each field deflated, then AES-256-GCM encrypted and bound to its user, field and write time, so a
 * value moved to another user or field, or given another time, fails to decrypt and counts as
 * absent. The budget is kept by an index of users by last write, in a slot of its own.
 */
export function createRedisUserDataStore(options: RedisUserDataStoreOptions): UserDataStore {
  const { redis, keyPrefix, cipher, clock } = options;
  redis.defineCommand('ofgUserDataRead', { numberOfKeys: 2, lua: READ_SCRIPT });
  redis.defineCommand('ofgUserDataApply', { numberOfKeys: 2, lua: APPLY_SCRIPT });
  redis.defineCommand('ofgUserDataDrop', { numberOfKeys: 1, lua: DROP_SCRIPT });
  redis.defineCommand('ofgUserDataIndex', { numberOfKeys: 3, lua: INDEX_SCRIPT });
  redis.defineCommand('ofgUserDataUnindex', { numberOfKeys: 3, lua: UNINDEX_SCRIPT });
  const commands = redis as unknown as UserDataCommands;
  const ttlMs = options.retentionMs;
  const hashOf = (tag: string) => `${taggedKeys(keyPrefix, tag)}:user-data`;
  const keysOf = (userId: string) => [hashOf(userTag(userId)), userEventsKey(keyPrefix, userId)] as const;
  const index = [
    `${keyPrefix}{user-data}:lru`,
    `${keyPrefix}{user-data}:sizes`,
    `${keyPrefix}{user-data}:bytes`,
  ] as const;
  const { decode, encode } = fieldCodec(cipher);

  const account = budgetKeeper(options, commands, index, hashOf);

  return {
    async read(userId, fields, topics, ledgerHead = 0) {
      const at = clock();
      const reply = await storeCall(() =>
        commands.ofgUserDataRead(
          ...keysOf(userId),
          randomToken(8),
          ttlMs,
          ledgerHead,
          topics.length,
          ...topics,
          ...fields,
        ),
      );
      if (reply[1] === 1) options.onForeignAcknowledgement?.();
      const values = new Map<string, Kept>();
      for (let index = 2; index < reply.length; index += 2) {
        const field = String(reply[index]);
        const kept = decode(userId, field, String(reply[index + 1]));
        if (kept) values.set(field, kept);
      }
      return { values, stamp: String(reply[0]), at };
    },

    async apply(userId, since, mutation): Promise<ApplyOutcome> {
      const [hash] = keysOf(userId);
      const put = (mutation.put ?? []).map(([field, value, writtenAt]) => [
        field,
        value === null ? null : encode(userId, field, value, writtenAt ?? since.at),
      ]);
      const log = mutation.log === undefined ? null : encode(userId, FIELD.log(0), mutation.log, since.at);
      const body = JSON.stringify({
        put,
        bump: mutation.bump ?? [],
        drop: mutation.drop ?? [],
        log,
        order: mutation.order ?? null,
        mode: mutation.overCap ?? 'make-room',
      });
      const [outcome, bytes, madeRoom, position] = await storeCall(() =>
        commands.ofgUserDataApply(
          ...keysOf(userId),
          since.stamp,
          body,
          options.userMaxBytes,
          ttlMs,
          LOG_KEPT,
          randomToken(8),
        ),
      );
      if (outcome !== 'kept') return { outcome: outcome as 'stale' | 'too-large' | 'over-cap' };
      if (madeRoom === 1) options.onEviction?.('user-cap', 1);
      options.onUserBytes?.(bytes);
      if (mutation.durable) await options.waitForReplicas?.(hash);
      await account(userTag(userId), bytes);
      return { outcome: 'kept', ...(position > 0 ? { position } : {}) };
    },

    async drop(userId, topics) {
      const [hash] = keysOf(userId);
      // The index keeps the bytes before the change until the user's next write: a webhook
      // waits on one round trip, and the budget errs towards evicting early.
      await storeCall(() => commands.ofgUserDataDrop(hash, ...topics));
      await options.waitForReplicas?.(hash);
    },

    async readLog(userId, after, limit) {
      const [hash] = keysOf(userId);
      const positions = Array.from({ length: limit }, (_, index) => after + 1 + index);
      const [head, ...stored] = await storeCall(() =>
        redis.hmget(hash, 'cs', ...positions.map((position) => `e:${FIELD.log(position)}`)),
      );
      const newest = Number(head ?? '0');
      const entries: Array<{ position: number; value: string }> = [];
      positions.forEach((position, index) => {
        const kept = decode(userId, FIELD.log(position), stored[index]);
        if (position <= newest && kept) entries.push({ position, value: kept.value });
      });
      return { entries, head: newest, oldest: Math.max(1, newest - LOG_KEPT + 1) };
    },

    async deleteUser(userId) {
      const [hash] = keysOf(userId);
      await storeCall(() => redis.del(hash));
      await options.waitForReplicas?.(hash);
      await storeCall(() => commands.ofgUserDataUnindex(...index, userTag(userId)));
    },

    trust: () => options.census?.trust() ?? Promise.resolve({ mixed: false, since: 0 }),

    async oldestKept(userId) {
      const [hash] = keysOf(userId);
      const stored = await storeCall(() => redis.hgetall(hash));
      // Only answers that would be served as they are: younger than the maximum age, and readable.
      const fresh = Object.entries(stored)
        .filter(([name]) => name.startsWith('e:') && isAnswerField(name.slice(2)))
        .map(([name, value]) => decode(userId, name.slice(2), value))
        .filter((kept): kept is Kept => kept !== undefined && clock() - kept.writtenAt < options.maxAgeMs)
        .map((kept) => kept.writtenAt);
      return fresh.length > 0 ? Math.min(...fresh) : undefined;
    },
  };
}
