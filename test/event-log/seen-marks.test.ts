import { describe, expect, it } from 'vitest';
import { createLogger } from '@open-finance-gateway/common/logger';
import { createMemoryEventLog } from '../../src/event-log/memory-event-log.js';
import { userKeys } from '../../src/redis/redis-keys.js';
import { track } from '../support/leftovers.js';
import { redisEventLog, SHARED_REDIS, testPrefix, testRedis } from '../support/redis.js';

const logger = createLogger({ level: 'silent' });
const RETENTION_MS = 3_600_000;

const event = (n: number) => ({
  type: 'TRANSACTION',
  code: 'DEFAULT_UPDATE',
  payload: { item_id: `acc_${n}` },
  receivedAt: new Date().toISOString(),
});
const marks = (from: number, count: number, digest: string) =>
  Array.from({ length: count }, (_, index) => ({ key: `transaction-${from + index}`, digest }));

async function redisLog() {
  const keyPrefix = testPrefix();
  const { eventLog } = await redisEventLog(SHARED_REDIS, keyPrefix, RETENTION_MS);
  /** How many objects the user's hash of what subscribers were given holds. */
  const kept = (userId: string) => testRedis().hlen(`${userKeys(keyPrefix, userId)}:seen`);
  return { eventLog, kept };
}

async function memoryLog() {
  const eventLog = createMemoryEventLog({ logger, clock: Date.now, retentionMs: RETENTION_MS });
  track(() => eventLog.close());
  return { eventLog, kept: undefined };
}

describe.each([
  ['memory', memoryLog],
  ['redis', redisLog],
] as const)('what subscribers were last given (%s)', (_name, open) => {
  it('is bounded: 2,000 rows announced then removed leave nothing kept, and past 128 objects it starts again', async () => {
    const { eventLog, kept } = await open();
    for (let batch = 0; batch < 20; batch += 1)
      expect(await eventLog.publishChange('user_s', event(batch), marks(batch * 100, 100, 'v1'))).toBeTruthy();
    if (kept) expect(await kept('user_s')).toBeLessThanOrEqual(128);
    for (let batch = 0; batch < 20; batch += 1)
      expect(await eventLog.publishChange('user_s', event(batch), marks(batch * 100, 100, 'gone'))).toBeTruthy();
    if (kept) expect(await kept('user_s')).toBe(0);

    // What is forgotten costs one more publish, never a lost one: a removal repeated is stored again,
    expect(await eventLog.publishChange('user_s', event(1), marks(0, 1, 'gone'))).toBeTruthy();
    // an object still there is judged as before,
    expect(await eventLog.publishChange('user_s', event(2), marks(5_000, 1, 'v1'))).toBeTruthy();
    expect(await eventLog.publishChange('user_s', event(2), marks(5_000, 1, 'v1'))).toBeUndefined();
    // until 128 others have been announced since.
    for (let batch = 0; batch < 3; batch += 1)
      await eventLog.publishChange('user_s', event(3), marks(batch * 100, 100, 'v2'));
    expect(await eventLog.publishChange('user_s', event(2), marks(5_000, 1, 'v1'))).toBeTruthy();
  });
});
