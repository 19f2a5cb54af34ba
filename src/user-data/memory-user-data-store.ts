import type { Clock } from '@open-finance-gateway/common/clock';
import { randomToken } from '@open-finance-gateway/common/ids';
import {
  fieldOf,
  topicOf,
  topicsOf,
  type UserDataLimits,
  type UserDataStore,
  type UserDataStoreEvents,
} from './user-data-store.js';

interface Kept {
  value: string;
  writtenAt: number;
}

/** One user's entries, the generation of each topic changed since their epoch began, and their size. */
interface UserEntries {
  epoch: string;
  generations: Map<string, number>;
  entries: Map<string, Kept>;
  bytes: number;
}

/** A value's size as the budget counts it: its length (JSON text, nearly all one byte a character in V8). */
const sizeOf = (value: string) => value.length;
/** What a user costs with nothing kept (their epoch and maps), so users who only read count too. */
const USER_OVERHEAD_BYTES = 512;

/**
 * In process memory, for one instance: a Map per user, in the order users were last used, so the
 * budget drops the least recently used users whole. A user's epoch is new each time their entries
 * are created, so deleting a user also ends every read in flight for them.
 */
export function createMemoryUserDataStore(
  options: UserDataLimits & UserDataStoreEvents & { clock: Clock },
): UserDataStore {
  const users = new Map<string, UserEntries>();
  let total = 0;
  const stampOf = (user: UserEntries, topic: string) => `${user.epoch}:${user.generations.get(topic) ?? 0}`;
  /** The user, moved to the most recently used end. */
  const touch = (userId: string, create: boolean): UserEntries | undefined => {
    let user = users.get(userId);
    if (user) users.delete(userId);
    else if (create) {
      user = { epoch: randomToken(8), generations: new Map(), entries: new Map(), bytes: USER_OVERHEAD_BYTES };
      total += USER_OVERHEAD_BYTES;
    }
    if (user) users.set(userId, user);
    return user;
  };
  const drop = (user: UserEntries, field: string) => {
    const kept = user.entries.get(field);
    if (!kept) return;
    user.entries.delete(field);
    user.bytes -= sizeOf(kept.value);
    total -= sizeOf(kept.value);
  };
  const deleteUser = (userId: string) => {
    const user = users.get(userId);
    if (!user) return;
    users.delete(userId);
    total -= user.bytes;
  };
  const withinBudget = (spare: string) => {
    let evicted = 0;
    for (const userId of users.keys()) {
      if (total <= options.budgetBytes || userId === spare) break;
      deleteUser(userId);
      evicted += 1;
    }
    if (evicted > 0) options.onEviction?.('budget', evicted);
  };

  return {
    async read(userId, entry) {
      const user = touch(userId, true)!;
      withinBudget(userId);
      const { topic } = topicOf(entry);
      const kept = user.entries.get(fieldOf(entry));
      const fresh = kept && options.clock() - kept.writtenAt < options.maxAgeMs;
      return { value: fresh ? kept.value : undefined, stamp: stampOf(user, topic), at: options.clock() };
    },

    async write(userId, entry, value, { stamp, at }) {
      const user = users.get(userId);
      const { topic } = topicOf(entry);
      if (!user || stampOf(user, topic) !== stamp) return 'stale';
      if (sizeOf(value) > options.userMaxBytes) return 'too-large';
      const field = fieldOf(entry);
      drop(user, field);
      if (user.bytes - USER_OVERHEAD_BYTES + sizeOf(value) > options.userMaxBytes) {
        for (const other of [...user.entries.keys()]) drop(user, other);
        options.onEviction?.('user-cap', 1);
      }
      user.entries.set(field, { value, writtenAt: at });
      user.bytes += sizeOf(value);
      total += sizeOf(value);
      touch(userId, false);
      options.onUserBytes?.(user.bytes);
      withinBudget(userId);
      return 'kept';
    },

    async change(userId, changes) {
      const user = users.get(userId);
      if (!user) return; // nothing kept, and no read in flight can write back (no epoch)
      for (const topic of changes.flatMap(topicsOf)) {
        user.generations.set(topic, (user.generations.get(topic) ?? 0) + 1);
        for (const field of [...user.entries.keys()]) if (field.startsWith(`${topic}|`)) drop(user, field);
      }
    },

    async deleteUser(userId) {
      deleteUser(userId);
    },
  };
}
