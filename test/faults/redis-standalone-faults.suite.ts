import { describe, expect, it } from 'vitest';
import { startFaultDeployment } from '../support/fault-deployment.js';
import { startFaultyRedis } from '../support/fault-redis.js';
import { runFaultStream } from '../support/fault-run.js';
import { track } from '../support/leftovers.js';
import { expectNoLossNoDuplicate } from './fault-expectations.js';

const COMMAND_TIMEOUT_MS = 300;
const EVENTS = 60;

async function standaloneDeployment() {
  const redis = await startFaultyRedis();
  track(() => redis.stop());
  const deployment = await startFaultDeployment({
    redis: { REDIS_URL: redis.url },
    instances: 3,
    users: 2,
    commandTimeoutMs: COMMAND_TIMEOUT_MS,
  });
  return { redis, deployment };
}

describe('webhooks through a standalone Redis that fails mid-stream', () => {
  it('loses and duplicates nothing when Redis is frozen for twice the command timeout', async () => {
    const { redis, deployment } = await standaloneDeployment();
    const [a, b, c] = deployment.instances;
    const report = await runFaultStream({
      deployment,
      receivers: [a!],
      subscribers: [b!, c!],
      events: EVENTS,
      faults: [
        {
          after: EVENTS / 3,
          inject: async () => {
            redis.freeze();
            await new Promise((resolve) => setTimeout(resolve, 2 * COMMAND_TIMEOUT_MS));
            redis.thaw();
          },
        },
      ],
    });
    expect(report.refusedAttempts).toBeGreaterThan(0); // the fault did reach the webhook path
    expectNoLossNoDuplicate(report);
  }, 60_000);

  it('loses and duplicates nothing when Redis restarts with append-only persistence', async () => {
    const { redis, deployment } = await standaloneDeployment();
    const [a, b, c] = deployment.instances;
    const report = await runFaultStream({
      deployment,
      receivers: [a!],
      subscribers: [b!, c!],
      events: EVENTS,
      faults: [{ after: EVENTS / 3, inject: () => redis.restart() }],
    });
    expectNoLossNoDuplicate(report);
  }, 60_000);

  it('loses and duplicates nothing when one of three instances is killed with SIGKILL', async () => {
    const { deployment } = await standaloneDeployment();
    const [a, b, c] = deployment.instances;
    const report = await runFaultStream({
      deployment,
      // The platform's one URL is a load balancer over A and B: after A dies, retries reach B.
      receivers: [a!, b!],
      subscribers: [b!, c!],
      events: EVENTS,
      faults: [
        {
          after: EVENTS / 3,
          inject: async () => {
            a!.process.kill('SIGKILL');
            await a!.exited;
          },
        },
      ],
    });
    expectNoLossNoDuplicate(report);
  }, 60_000);
});
