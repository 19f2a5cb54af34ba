import { describe, expect, it } from 'vitest';
import { createLogger } from '@open-finance-gateway/common/logger';
import { createMemorySessionEndings } from '../../src/auth/memory-session-endings.js';
import { createRedisSessionEndings } from '../../src/auth/redis-session-endings.js';
import type { SessionEndingsBus } from '../../src/auth/session-endings.js';
import type { RedisConnectionSettings } from '../../src/config/redis-settings.js';
import { storeKinds } from '../support/redis-topologies.js';
import { instanceRedis, testPrefix } from '../support/redis.js';

/**
 * The contract of the instants access ended (the session endings store): kept per user and per
 * device, the later instant wins, and two instances see each other's at once. In memory the two
 * "instances" are one object; on Redis two stores with their own connections share a prefix.
 */
const logger = createLogger({ level: 'silent' });

async function redisPair(connection: RedisConnectionSettings): Promise<[SessionEndingsBus, SessionEndingsBus]> {
  const keyPrefix = testPrefix();
  const one = async () => {
    const { redis, listener } = await instanceRedis(connection);
    return createRedisSessionEndings({ redis, listener, keyPrefix, logger });
  };
  return [await one(), await one()];
}

function memoryPair(): [SessionEndingsBus, SessionEndingsBus] {
  const endings = createMemorySessionEndings(Date.now);
  return [endings, endings];
}

for (const [kind, make] of storeKinds(memoryPair, redisPair)) {
  describe(`access endings contract: ${kind}`, () => {
    it('keeps the instant per user and per device, the later one wins, and another instance reads it at once', async () => {
      const [a, b] = await make();
      expect(await b.accessNotBefore('user-1', 'device-1')).toBeUndefined();
      await a.endAccessBefore('user-1', 2_000, 'device-1');
      expect(await b.accessNotBefore('user-1', 'device-1')).toBe(2_000);
      expect(await b.accessNotBefore('user-1', 'device-2')).toBeUndefined();
      // The whole user: every device, and the later of the two instants.
      await b.endAccessBefore('user-1', 1_000);
      expect(await a.accessNotBefore('user-1', 'device-1')).toBe(2_000);
      expect(await a.accessNotBefore('user-1', 'device-2')).toBe(1_000);
      await a.endAccessBefore('user-1', 3_000);
      expect(await b.accessNotBefore('user-1', 'device-1')).toBe(3_000);
      // An earlier instant arriving late does not move it back.
      await b.endAccessBefore('user-1', 500);
      expect(await a.accessNotBefore('user-1', 'device-2')).toBe(3_000);
      expect(await a.accessNotBefore('user-2', 'device-1')).toBeUndefined();
    });
  });
}
