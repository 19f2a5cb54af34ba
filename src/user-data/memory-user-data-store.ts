import type { Clock } from '@open-finance-gateway/common/clock';
import { randomToken } from '@open-finance-gateway/common/ids';
import { parseStamp, plannedDeletions } from './user-data-mutation.js';
import {
  FIELD,
  isAnswerField,
  LOG_KEPT,
  type Kept,
  type UserDataLimits,
  type UserDataStore,
  type UserDataStoreEvents,
} from './user-data-store.js';

/** One user's fields, the generation of each topic changed since their epoch began, and their size. */
interface UserRecord {
  epoch: string;
  generations: Map<string, number>;
  fields: Map<string, Kept>;
  bytes: number;
  logHead: number;
  order: string;
  /** When it was last written: a record unused for the retention is dropped, as Redis expires it. */
  writtenAt: number;
}

/** A value's size as the budget counts it: its length (JSON text, nearly all one byte a character in V8). */
const sizeOf = (kept: Kept | undefined) => kept?.value.length ?? 0;
/** What a user costs with nothing kept (their epoch and maps), so users who only read count too. */
const USER_OVERHEAD_BYTES = 512;

/**
 * In process memory, for one instance: a record per user, in the order users were last used, so
 * the budget drops the least recently used users whole. A user's epoch is new each time their
 * record is created, so deleting a user also ends every read in flight for them.
 */
export function createMemoryUserDataStore(
  options: UserDataLimits & UserDataStoreEvents & { clock: Clock },
): UserDataStore {
  const users = new Map<string, UserRecord>();
  let total = 0;
  const stampOf = (user: UserRecord, topics: readonly string[]) =>
    [user.epoch, ...topics.map((topic) => `${topic}=${user.generations.get(topic) ?? 0}`)].join('|');
  /** The user, moved to the most recently used end. */
  const touch = (userId: string, create: boolean): UserRecord | undefined => {
    let user = users.get(userId);
    if (user && options.clock() - user.writtenAt >= options.retentionMs) {
      deleteUser(userId);
      user = undefined;
    }
    if (user) users.delete(userId);
    else if (create) {
      user = {
        epoch: randomToken(8),
        generations: new Map(),
        fields: new Map(),
        bytes: 0,
        logHead: 0,
        order: '',
        writtenAt: options.clock(),
      };
      total += USER_OVERHEAD_BYTES;
    }
    if (user) users.set(userId, user);
    return user;
  };
  const remove = (user: UserRecord, field: string) => {
    const size = sizeOf(user.fields.get(field));
    user.fields.delete(field);
    user.bytes -= size;
    total -= size;
  };
  const deleteUser = (userId: string) => {
    const user = users.get(userId);
    if (!user) return;
    users.delete(userId);
    total -= user.bytes + USER_OVERHEAD_BYTES;
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
  const bump = (user: UserRecord, topic: string) => user.generations.set(topic, (user.generations.get(topic) ?? 0) + 1);

  return {
    async read(userId, fields, topics, ledgerHead = 0) {
      const user = touch(userId, true)!;
      withinBudget(userId);
      const head = ledgerHead > 0 && user.order ? user.order.split(',').slice(0, ledgerHead) : [];
      const values = new Map<string, Kept>();
      for (const field of [...fields, ...head.map((id) => FIELD.block(Number(id)))]) {
        const kept = user.fields.get(field);
        if (kept) values.set(field, kept);
      }
      return { values, stamp: stampOf(user, topics), at: options.clock() };
    },

    async apply(userId, since, mutation) {
      const user = users.get(userId);
      const expected = parseStamp(since.stamp);
      if (!user || user.epoch !== expected.epoch) return { outcome: 'stale' };
      for (const [topic, generation] of expected.generations)
        if ((user.generations.get(topic) ?? 0) !== generation) return { outcome: 'stale' };
      const puts = (mutation.put ?? []).map(
        ([field, value, writtenAt]) =>
          [field, value === null ? undefined : { value, writtenAt: writtenAt ?? since.at }] as const,
      );
      const logEntry = mutation.log === undefined ? undefined : { value: mutation.log, writtenAt: since.at };
      const deletions = plannedDeletions([...user.fields.keys()], mutation, user.logHead);
      const changed = new Set([...deletions, ...puts.map(([field]) => field)]);
      const added = puts.reduce((sum, [, kept]) => sum + sizeOf(kept), sizeOf(logEntry));
      if (puts.some(([, kept]) => sizeOf(kept) > options.userMaxBytes)) return { outcome: 'too-large' };
      let bytes = user.bytes + added - [...changed].reduce((sum, field) => sum + sizeOf(user.fields.get(field)), 0);
      if (bytes > options.userMaxBytes) {
        if (mutation.overCap === 'refuse') return { outcome: 'over-cap' };
        for (const field of user.fields.keys()) changed.add(field);
        bytes = added;
        options.onEviction?.('user-cap', 1);
      }
      for (const topic of [...(mutation.bump ?? []), ...(mutation.drop ?? [])]) bump(user, topic);
      for (const field of changed) remove(user, field);
      const writes = puts.filter((put): put is readonly [string, Kept] => put[1] !== undefined);
      let position: number | undefined;
      if (logEntry) writes.push([FIELD.log((position = ++user.logHead)), logEntry]);
      for (const [field, kept] of writes) {
        user.fields.set(field, kept);
        user.bytes += sizeOf(kept);
        total += sizeOf(kept);
      }
      if (mutation.order !== undefined) user.order = mutation.order;
      user.writtenAt = options.clock();
      touch(userId, false);
      options.onUserBytes?.(user.bytes);
      withinBudget(userId);
      return { outcome: 'kept', position };
    },

    async drop(userId, topics) {
      const user = users.get(userId);
      if (!user) return; // nothing kept, and no read in flight can write back (no epoch)
      for (const topic of topics) {
        bump(user, topic);
        for (const field of [...user.fields.keys()]) if (field.startsWith(`${topic}|`)) remove(user, field);
      }
    },

    async readLog(userId, after, limit) {
      const user = users.get(userId);
      const head = user?.logHead ?? 0;
      const entries: Array<{ position: number; value: string }> = [];
      for (let position = after + 1; user && position <= Math.min(head, after + limit); position += 1) {
        const kept = user.fields.get(FIELD.log(position));
        if (kept) entries.push({ position, value: kept.value });
      }
      return { entries, head, oldest: Math.max(1, head - LOG_KEPT + 1) };
    },

    async deleteUser(userId) {
      deleteUser(userId);
    },

    // One instance, one version: what it keeps is always its own.
    trust: async () => ({ mixed: false, since: 0 }),

    async oldestKept(userId) {
      const fresh = [...(users.get(userId)?.fields ?? [])]
        .filter(([field, kept]) => isAnswerField(field) && options.clock() - kept.writtenAt < options.maxAgeMs)
        .map(([, kept]) => kept.writtenAt);
      return fresh.length > 0 ? Math.min(...fresh) : undefined;
    },
  };
}
