import type { Logger } from '@open-finance-gateway/common/logger';
import { storeCall, type RedisClient } from '../redis/redis-client.js';
import { userKeys } from '../redis/redis-keys.js';
import {
  startSweeper,
  type BankConnectionRecord,
  type BankConnectionStore,
  type BankConnectionStoreOptions,
} from './bank-connection-store.js';
import { sealedTokenFields, sealedTokenOf, type StoredPlatformToken } from './stored-platform-token.js';
import type { TokenCipher } from './token-cipher.js';

/** The platform token (see stored-platform-token), encrypted and bound to this user's connection record. */
interface StoredBankConnection extends StoredPlatformToken {
  platformUserId: string;
  connectedAt: number;
  lastUsedAt: number;
}

/** Deletes the key only if it still holds the value read (the ciphertext is unique per write). */
const DELETE_IF_UNCHANGED = `
if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) end
return 0`;

/** Replaces the value only if it is still the one read (a reconnection in between wins). */
const REPLACE_IF_UNCHANGED = `
if redis.call('GET', KEYS[1]) == ARGV[1] then redis.call('SET', KEYS[1], ARGV[2]) return 1 end
return 0`;

const SWEEP_BATCH = 100;

/**
 * Takes a due deadline entry for this sweep by moving it a lease ahead (not removing it): if the
 * sweep fails after this ran (its answer lost to a timeout, the instance gone), the entry comes due
 * again and a later sweep handles it, instead of a connection left with no deadline whose token
 * is never revoked. Only one instance moves a due entry, so each lapse is handled once.
 */
const TAKE_DUE = `
local score = redis.call('ZSCORE', KEYS[1], ARGV[1])
if not score or tonumber(score) > tonumber(ARGV[2]) then return 0 end
redis.call('ZADD', KEYS[1], ARGV[3], ARGV[1])
return 1`;

/** How long a taken entry waits before another sweep may take it again. */
const SWEEP_LEASE_MS = 5 * 60_000;

/**
 * Connections on Redis: one key per app user under the user's hash tag, the token encrypted and
 * bound to the user id, and a sorted set of idle deadlines (member: the user id) so that a sweep
 * on any instance finds lapsed connections, each handled once (ZREM decides which instance).
 * The key itself has no expiry: a connection is only forgotten once its token is being revoked.
 */
export function createRedisBankConnectionStore(
  options: BankConnectionStoreOptions & { redis: RedisClient; keyPrefix: string; cipher: TokenCipher; logger: Logger },
): BankConnectionStore {
  const { redis, cipher } = options;
  const key = (userId: string) => `${userKeys(options.keyPrefix, userId)}:connection`;
  const deadlinesKey = `${options.keyPrefix}connection-deadlines`;
  const binding = (userId: string) => `connection|user:${userId}`;
  const deadlineOf = (record: { lastUsedAt: number }) => record.lastUsedAt + options.idleMs;
  const decode = (userId: string, raw: string | null): BankConnectionRecord | undefined => {
    if (raw === null) return undefined;
    const stored = JSON.parse(raw) as StoredBankConnection;
    return {
      platformUserId: stored.platformUserId,
      platformToken: cipher.decrypt(sealedTokenOf(stored)!, binding(userId)),
      connectedAt: stored.connectedAt,
      lastUsedAt: stored.lastUsedAt,
    };
  };
  const live = (record: BankConnectionRecord | undefined) =>
    record && options.clock() < deadlineOf(record) ? record : undefined;

  async function compareAndDelete(userId: string, raw: string): Promise<boolean> {
    return (await storeCall(() => redis.eval(DELETE_IF_UNCHANGED, 1, key(userId), raw))) === 1;
  }

  async function sweep(): Promise<void> {
    const due = await storeCall(() =>
      redis.zrangebyscore(deadlinesKey, '-inf', options.clock(), 'LIMIT', 0, SWEEP_BATCH),
    );
    for (const userId of due) {
      const now = options.clock();
      const taken = await storeCall(() => redis.eval(TAKE_DUE, 1, deadlinesKey, userId, now, now + SWEEP_LEASE_MS));
      if (taken !== 1) continue;
      const raw = await storeCall(() => redis.get(key(userId)));
      const record = decode(userId, raw);
      if (!record) {
        await storeCall(() => redis.zrem(deadlinesKey, userId));
        continue;
      }
      if (live(record)) {
        // Used again meanwhile: put its new deadline back.
        await storeCall(() => redis.zadd(deadlinesKey, deadlineOf(record), userId));
        continue;
      }
      // Changed meanwhile (reconnected): the entry comes due again after the lease and is re-read.
      if (!(await compareAndDelete(userId, raw!))) continue;
      await storeCall(() => redis.zrem(deadlinesKey, userId));
      options.onExpired?.(userId, record);
    }
  }
  const stop = startSweeper(sweep, options.sweepIntervalMs ?? 60_000, (error) =>
    options.logger.warn({ err: { message: (error as Error).message } }, 'connection sweep failed; will retry'),
  );

  async function write(userId: string, stored: StoredBankConnection): Promise<string | null> {
    // The deadline first: a connection without one would never be swept (and its token never revoked).
    await storeCall(() => redis.zadd(deadlinesKey, deadlineOf(stored), userId));
    return storeCall(() => redis.set(key(userId), JSON.stringify(stored), 'GET'));
  }

  return {
    async get(userId) {
      return live(decode(userId, await storeCall(() => redis.get(key(userId)))));
    },
    async set(userId, record) {
      const previous = await write(userId, {
        platformUserId: record.platformUserId,
        ...sealedTokenFields(cipher.encrypt(record.platformToken, binding(userId))),
        connectedAt: record.connectedAt,
        lastUsedAt: record.lastUsedAt,
      });
      return decode(userId, previous);
    },
    async touch(userId) {
      const raw = await storeCall(() => redis.get(key(userId)));
      if (raw === null || !live(decode(userId, raw))) return;
      const touched: StoredBankConnection = {
        ...(JSON.parse(raw) as StoredBankConnection),
        lastUsedAt: options.clock(),
      };
      await storeCall(() => redis.zadd(deadlinesKey, deadlineOf(touched), userId));
      await storeCall(() => redis.eval(REPLACE_IF_UNCHANGED, 1, key(userId), raw, JSON.stringify(touched)));
    },
    async delete(userId, onlyToken) {
      const raw = await storeCall(() => redis.get(key(userId)));
      const current = decode(userId, raw);
      if (!current || (onlyToken !== undefined && current.platformToken !== onlyToken)) return undefined;
      if (!(await compareAndDelete(userId, raw!))) return undefined;
      await storeCall(() => redis.zrem(deadlinesKey, userId));
      return current;
    },
    sweep,
    async close() {
      stop();
    },
  };
}
