import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { createLogger } from '@open-finance-gateway/common/logger';
import { createRedisBankConnectionStore } from '../../src/auth/redis-bank-connection-store.js';
import { createTokenCipher } from '../../src/auth/token-cipher.js';
import { StoreUnavailableError } from '../../src/lib/store-unavailable.js';
import { createRedisClient, type RedisClient } from '../../src/redis/redis-client.js';
import { track } from '../support/leftovers.js';
import { SHARED_REDIS, testPrefix } from '../support/redis.js';

const logger = createLogger({ level: 'silent' });
const IDLE_MS = 30 * 86_400_000;

/**
 * The client, except that the sweep's first write after reading the due deadlines is applied by
 * Redis but its answer is lost (a command timeout while the server stalled).
 */
function losingFirstSweepAnswer(client: RedisClient): RedisClient {
  let readDue = false;
  let lost = false;
  return new Proxy(client, {
    get(target, property, receiver) {
      const value = Reflect.get(target, property, receiver) as unknown;
      if (typeof value !== 'function') return value;
      return (...args: unknown[]) => {
        const result = (value as (...a: unknown[]) => unknown).apply(target, args);
        if (property === 'zrangebyscore') readDue = true;
        else if (readDue && !lost && (property === 'zrem' || property === 'eval')) {
          lost = true;
          return (result as Promise<unknown>).then(() => {
            throw new StoreUnavailableError(new Error('Command timed out'));
          });
        }
        return result;
      };
    },
  });
}

describe('bank connections on Redis, when a sweep write times out', () => {
  it('an idle connection whose sweep failed after its first write is still found and reported by a later sweep', async () => {
    const redis = createRedisClient({ connection: SHARED_REDIS, commandTimeoutMs: 1_000, logger, role: 'test' });
    await redis.connect();
    track(() => redis.disconnect());
    let now = Date.now();
    const expired: string[] = [];
    const connections = createRedisBankConnectionStore({
      redis: losingFirstSweepAnswer(redis),
      keyPrefix: testPrefix(),
      cipher: createTokenCipher([{ id: 'k1', key: randomBytes(32) }]),
      logger,
      clock: () => now,
      idleMs: IDLE_MS,
      onExpired: (userId) => expired.push(userId),
      sweepIntervalMs: 3_600_000,
    });
    track(() => connections.close());
    await connections.set('app_idle', {
      platformUserId: 'user_px',
      platformToken: 'user_token_idle_0123456789',
      connectedAt: now,
      lastUsedAt: now,
    });
    now += IDLE_MS + 1_000;
    await expect(connections.sweep()).rejects.toThrow(StoreUnavailableError);
    expect(expired).toEqual([]);
    // Later sweeps (within the hour, as they run) report it, once.
    now += 10 * 60_000;
    await connections.sweep();
    await connections.sweep();
    expect(expired).toEqual(['app_idle']);
  });
});
