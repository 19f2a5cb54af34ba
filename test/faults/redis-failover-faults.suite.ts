import { describe, it } from 'vitest';
import { startFaultDeployment } from '../support/fault-deployment.js';
import { startReplicatedCluster } from '../support/fault-redis.js';
import { runFaultStream } from '../support/fault-run.js';
import { track } from '../support/leftovers.js';
import { startRedisSentinel } from '../support/redis-topologies.js';
import { expectNoLossNoDuplicate } from './fault-expectations.js';

const COMMAND_TIMEOUT_MS = 300;
const EVENTS = 60;

describe('webhooks through a Redis failover mid-stream', () => {
  it('loses and duplicates nothing when Sentinel promotes the replica', async () => {
    const sentinel = await startRedisSentinel();
    track(() => sentinel.stop());
    const deployment = await startFaultDeployment({
      redis: sentinel.env,
      instances: 3,
      users: 2,
      commandTimeoutMs: COMMAND_TIMEOUT_MS,
    });
    const [a, b, c] = deployment.instances;
    const report = await runFaultStream({
      deployment,
      receivers: [a!],
      subscribers: [b!, c!],
      events: EVENTS,
      faults: [{ after: EVENTS / 3, inject: () => sentinel.failOver() }],
    });
    expectNoLossNoDuplicate(report);
  }, 120_000);

  it('loses and duplicates nothing when a Cluster primary dies and its replica takes over', async () => {
    const cluster = await startReplicatedCluster();
    track(() => cluster.stop());
    const deployment = await startFaultDeployment({
      redis: cluster.env,
      instances: 3,
      users: 2,
      commandTimeoutMs: COMMAND_TIMEOUT_MS,
    });
    const [a, b, c] = deployment.instances;
    const report = await runFaultStream({
      deployment,
      receivers: [a!],
      subscribers: [b!, c!],
      events: EVENTS,
      faults: [{ after: EVENTS / 3, inject: () => cluster.failOverOnePrimary() }],
    });
    expectNoLossNoDuplicate(report);
  }, 120_000);
});
