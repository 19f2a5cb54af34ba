import { deflateRawSync, inflateRawSync } from 'node:zlib';
import type { Clock } from '@open-finance-gateway/common/clock';
import { randomToken } from '@open-finance-gateway/common/ids';
import { storeCall, type RedisClient } from '../redis/redis-client.js';
import { taggedKeys, userTag } from '../redis/redis-keys.js';
import type { ReplicaWait } from '../redis/redis-replica-wait.js';
import { CHANGE_SCRIPT, INDEX_SCRIPT, READ_SCRIPT, UNINDEX_SCRIPT, WRITE_SCRIPT } from './redis-user-data-scripts.js';
import {
  fieldOf,
  topicOf,
  topicsOf,
  type UserDataLimits,
  type UserDataStore,
  type UserDataStoreEvents,
  type WriteOutcome,
} from './user-data-store.js';

/** Encrypts entries at rest (the token cipher: the first key encrypts, every key decrypts). */
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
}

interface UserDataCommands {
  ofgUserDataRead(
    key: string,
    topic: string,
    field: string,
    epoch: string,
    ttlMs: number,
  ): Promise<[string, string | null]>;
  ofgUserDataWrite(key: string, ...args: Array<string | number>): Promise<[WriteOutcome, number, number]>;
  ofgUserDataChange(key: string, ...topics: string[]): Promise<number>;
  ofgUserDataIndex(lru: string, sizes: string, total: string, ...args: Array<string | number>): Promise<number>;
  ofgUserDataUnindex(lru: string, sizes: string, total: string, ...tags: string[]): Promise<number>;
}

/** Most users dropped at once when the store is over its budget. */
const EVICTION_BATCH = 10;

/**
 * On Redis, shared by every instance: one hash per user under the user's tag (see the scripts),
 * each entry deflated, then AES-256-GCM encrypted and bound to its user, field and write time, so a value moved
 * to another user or entry, or given another time, fails to decrypt and counts as a miss. The
 * budget is kept by an index of users by last write, in a slot of its own.
 */
export function createRedisUserDataStore(options: RedisUserDataStoreOptions): UserDataStore {
  const { redis, keyPrefix, cipher, clock } = options;
  redis.defineCommand('ofgUserDataRead', { numberOfKeys: 1, lua: READ_SCRIPT });
  redis.defineCommand('ofgUserDataWrite', { numberOfKeys: 1, lua: WRITE_SCRIPT });
  redis.defineCommand('ofgUserDataChange', { numberOfKeys: 1, lua: CHANGE_SCRIPT });
  redis.defineCommand('ofgUserDataIndex', { numberOfKeys: 3, lua: INDEX_SCRIPT });
  redis.defineCommand('ofgUserDataUnindex', { numberOfKeys: 3, lua: UNINDEX_SCRIPT });
  const commands = redis as unknown as UserDataCommands;
  const keyOfTag = (tag: string) => `${taggedKeys(keyPrefix, tag)}:user-data`;
  const index = [
    `${keyPrefix}{user-data}:lru`,
    `${keyPrefix}{user-data}:sizes`,
    `${keyPrefix}{user-data}:bytes`,
  ] as const;
  const binding = (userId: string, field: string, writtenAt: string) => `user-data:${userId}:${field}:${writtenAt}`;

  const decode = (userId: string, field: string, stored: string | null): string | undefined => {
    if (stored === null) return undefined;
    const dot = stored.indexOf('.');
    const writtenAt = stored.slice(0, dot);
    if (clock() - Number(writtenAt) >= options.maxAgeMs || dot < 0) return undefined;
    try {
      const packed = cipher.decrypt(stored.slice(dot + 1), binding(userId, field, writtenAt));
      return inflateRawSync(Buffer.from(packed, 'base64')).toString('utf8');
    } catch {
      return undefined; // a key no longer configured, or a value not written for this entry: a miss
    }
  };

  /** Records the user's bytes and, past the budget, drops the least recently written users. */
  const account = async (tag: string, bytes: number) => {
    const now = clock();
    let total = await storeCall(() => commands.ofgUserDataIndex(...index, tag, bytes, now, now - options.maxAgeMs));
    let evicted = 0;
    while (total > options.budgetBytes) {
      const oldest = (await storeCall(() => redis.zrange(index[0], '0', String(EVICTION_BATCH - 1)))).filter(
        (t) => t !== tag,
      );
      if (oldest.length === 0) break;
      for (const victim of oldest) await storeCall(() => redis.del(keyOfTag(victim)));
      total = await storeCall(() => commands.ofgUserDataUnindex(...index, ...oldest));
      evicted += oldest.length;
    }
    if (evicted > 0) options.onEviction?.('budget', evicted);
  };

  return {
    async read(userId, entry) {
      const { topic } = topicOf(entry);
      const field = fieldOf(entry);
      const at = clock();
      const [stamp, stored] = await storeCall(() =>
        commands.ofgUserDataRead(keyOfTag(userTag(userId)), topic, field, randomToken(8), options.maxAgeMs),
      );
      return { value: decode(userId, field, stored), stamp, at };
    },

    async write(userId, entry, value, { stamp, at }) {
      const tag = userTag(userId);
      const field = fieldOf(entry);
      const writtenAt = String(at);
      // Compressed before it is encrypted (JSON pages shrink about fivefold; ciphertext would not).
      const packed = deflateRawSync(Buffer.from(value, 'utf8')).toString('base64');
      const stored = `${writtenAt}.${cipher.encrypt(packed, binding(userId, field, writtenAt))}`;
      const [outcome, bytes, dropped] = await storeCall(() =>
        commands.ofgUserDataWrite(
          keyOfTag(tag),
          stamp,
          topicOf(entry).topic,
          field,
          stored,
          options.userMaxBytes,
          options.maxAgeMs,
        ),
      );
      if (outcome !== 'kept') return outcome;
      if (dropped === 1) options.onEviction?.('user-cap', 1);
      options.onUserBytes?.(bytes);
      await account(tag, bytes);
      return outcome;
    },

    async change(userId, changes) {
      const tag = userTag(userId);
      const key = keyOfTag(tag);
      // The index keeps the bytes before the change until the user's next write: a webhook
      // waits on one round trip, and the budget errs towards evicting early.
      await storeCall(() => commands.ofgUserDataChange(key, ...changes.flatMap(topicsOf)));
      await options.waitForReplicas?.(key);
    },

    async deleteUser(userId) {
      const tag = userTag(userId);
      await storeCall(() => redis.del(keyOfTag(tag)));
      await options.waitForReplicas?.(keyOfTag(tag));
      await storeCall(() => commands.ofgUserDataUnindex(...index, tag));
    },
  };
}
