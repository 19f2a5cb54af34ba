import { existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Redis } from 'ioredis';
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config/config.js';
import { StoreUnavailableError } from '../../src/lib/store-unavailable.js';
import { createReplicaWait } from '../../src/redis/redis-replica-wait.js';
import { createRedisRoutingHandleStore } from '../../src/webhooks/redis-routing-handle-store.js';
import { track } from '../support/leftovers.js';
import { tokenKeysSetting } from '../support/redis.js';
import { startStallableRedis } from '../support/stallable-redis.js';

async function primaryWithReplica() {
  const primary = await startStallableRedis();
  const replica = await startStallableRedis(['--replicaof', '127.0.0.1', new URL(primary.url).port]);
  const redis = new Redis(primary.url, { maxRetriesPerRequest: 1, commandTimeout: 1_000 });
  track(() => redis.disconnect());
  // Replication has no event to wait on: ask the primary until the replica is in sync.
  for (let tries = 0; !/connected_slaves:1[\s\S]*state=online/.test(await redis.info('replication')); tries += 1) {
    if (tries > 200) throw new Error('the replica never came online');
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  return { redis, replica };
}

describe('waiting for replicas before a webhook is acknowledged', () => {
  it("keeps the replica's files (the snapshot its primary sends) out of the working tree", async () => {
    const { replica } = await primaryWithReplica();
    const client = new Redis(replica.url, { maxRetriesPerRequest: 1 });
    track(() => client.disconnect());
    const [, dir] = (await client.config('GET', 'dir')) as [string, string];
    expect(dir.startsWith(tmpdir())).toBe(true);
    expect(existsSync(join(dir, 'dump.rdb'))).toBe(true); // the full sync's snapshot, there
  });

  it('resolves once a replica holds the write, and fails (retryable) when none answers in time', async () => {
    const { redis, replica } = await primaryWithReplica();
    // A live replica acknowledges within milliseconds, but a loaded machine (the whole suite on two
    // cores) has taken more than 400 ms: the wait that must succeed is given room.
    await redis.set('ofg-wait-probe', '1');
    await expect(createReplicaWait(redis, 1, 5_000)('ofg-wait-probe')).resolves.toBeUndefined();

    replica.pause();
    try {
      await redis.set('ofg-wait-probe', '2');
      await expect(createReplicaWait(redis, 1, 400)('ofg-wait-probe')).rejects.toBeInstanceOf(StoreUnavailableError);
    } finally {
      replica.resume();
    }
  });

  it('hands out a routing handle only once a replica holds it: a failover cannot make a user unroutable', async () => {
    const { redis, replica } = await primaryWithReplica();
    const handles = createRedisRoutingHandleStore({
      redis,
      keyPrefix: 'ofg-wait-handles:',
      // Room for a loaded machine (see above); a paused replica costs the test this long per refusal.
      waitForReplicas: createReplicaWait(redis, 1, 2_000),
    });
    const handle = await handles.handleFor('user-a');
    expect(await handles.userFor(handle)).toBe('user-a');

    replica.pause();
    try {
      await expect(handles.handleFor('user-b')).rejects.toBeInstanceOf(StoreUnavailableError);
      // The user's existing handle too: each hand-out waits until a replica holds the pair.
      await expect(handles.handleFor('user-a')).rejects.toBeInstanceOf(StoreUnavailableError);
    } finally {
      replica.resume();
    }
    expect(await handles.handleFor('user-a')).toBe(handle);
  });

  it('does not wait on a primary with no replica at all (as after a failover): nothing could be promoted', async () => {
    const { redis, replica } = await primaryWithReplica();
    await replica.kill();
    for (let tries = 0; !/connected_slaves:0/.test(await redis.info('replication')); tries += 1) {
      if (tries > 200) throw new Error('the primary never noticed the replica was gone');
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    await redis.set('ofg-wait-probe', '3');
    await expect(createReplicaWait(redis, 1, 400)('ofg-wait-probe')).resolves.toBeUndefined();
  });

  it('waits for one replica by default where Redis fails over (Sentinel, Cluster), for none on a single server', () => {
    const base = { REDIS_URL: 'redis://a:6379', TOKEN_ENCRYPTION_KEYS: tokenKeysSetting() };
    expect(loadConfig(base).redis!.waitReplicas).toBe(0);
    expect(loadConfig({ ...base, REDIS_MODE: 'cluster' }).redis!.waitReplicas).toBe(1);
    expect(loadConfig({ ...base, REDIS_MODE: 'sentinel', REDIS_SENTINEL_MASTER: 'm' }).redis!.waitReplicas).toBe(1);
    expect(loadConfig({ ...base, REDIS_MODE: 'cluster', REDIS_WAIT_REPLICAS: '0' }).redis!.waitReplicas).toBe(0);
    expect(() => loadConfig({ REDIS_WAIT_REPLICAS: '1' })).toThrow(/REDIS_WAIT_REPLICAS/);
  });
});
