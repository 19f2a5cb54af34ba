import type { ConnectionRecord, ConnectionStore } from '../auth/connection-store.js';
import { userTag } from '../auth/session-store.js';
import type { TokenCipher } from '../auth/token-cipher.js';
import { storeCall, type RedisClient } from './redis-client.js';

interface StoredConnection {
  platformUserId: string;
  /** Encrypted, bound to this user's connection record (see token-cipher). */
  token: string;
  connectedAt: number;
}

/** Deletes the key only if it still holds the value read (the ciphertext is unique per write). */
const DELETE_IF_UNCHANGED = `
if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) end
return 0`;

/**
 * Connections on Redis: one key per app user under the user's hash tag, the token encrypted and
 * bound to the user id. No expiry: a connection lasts until it is revoked, refused or deleted.
 */
export function createRedisConnections(options: {
  redis: RedisClient;
  keyPrefix: string;
  cipher: TokenCipher;
}): ConnectionStore {
  const { redis, cipher } = options;
  const key = (userId: string) => `${options.keyPrefix}{u:${userTag(userId)}}:connection`;
  const binding = (userId: string) => `connection|user:${userId}`;
  const decode = (userId: string, raw: string | null): ConnectionRecord | undefined => {
    if (raw === null) return undefined;
    const stored = JSON.parse(raw) as StoredConnection;
    return {
      platformUserId: stored.platformUserId,
      accessToken: cipher.decrypt(stored.token, binding(userId)),
      connectedAt: stored.connectedAt,
    };
  };
  return {
    async get(userId) {
      return decode(userId, await storeCall(() => redis.get(key(userId))));
    },
    async set(userId, record) {
      const stored: StoredConnection = {
        platformUserId: record.platformUserId,
        token: cipher.encrypt(record.accessToken, binding(userId)),
        connectedAt: record.connectedAt,
      };
      return decode(userId, await storeCall(() => redis.set(key(userId), JSON.stringify(stored), 'GET')));
    },
    async delete(userId, onlyToken) {
      const raw = await storeCall(() => redis.get(key(userId)));
      const current = decode(userId, raw);
      if (!current || (onlyToken !== undefined && current.accessToken !== onlyToken)) return undefined;
      const removed = await storeCall(() => redis.eval(DELETE_IF_UNCHANGED, 1, key(userId), raw!));
      return removed === 1 ? current : undefined;
    },
  };
}
