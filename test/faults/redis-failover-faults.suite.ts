import { describe, it } from 'vitest';
import { startReplicatedCluster } from '../support/fault-redis.js';
import { runOneFault } from '../support/fault-run.js';
import { track } from '../support/leftovers.js';
import { startRedisSentinel } from '../support/redis-topologies.js';
import { expectNoLossNoDuplicate } from './fault-expectations.js';

describe('webhooks through a Redis failover mid-stream', () => {
  it('loses and duplicates nothing when Sentinel promotes the replica', async () => {
    const sentinel = await startRedisSentinel();
    track(() => sentinel.stop());
    expectNoLossNoDuplicate(await runOneFault({ env: sentinel.env, inject: () => sentinel.failOver() }));
  }, 120_000);

  it('loses and duplicates nothing when a Cluster primary dies and its replica takes over', async () => {
    const cluster = await startReplicatedCluster();
    track(() => cluster.stop());
    expectNoLossNoDuplicate(await runOneFault({ env: cluster.env, inject: () => cluster.failOverOnePrimary() }));
  }, 120_000);
});
