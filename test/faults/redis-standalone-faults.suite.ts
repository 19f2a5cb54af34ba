import { describe, expect, it } from 'vitest';
import { startFaultyRedis } from '../support/fault-redis.js';
import { FAULT_COMMAND_TIMEOUT_MS, runOneFault } from '../support/fault-run.js';
import { track } from '../support/leftovers.js';
import { expectNoLossNoDuplicate } from './fault-expectations.js';

async function standaloneRedis() {
  const redis = await startFaultyRedis();
  track(() => redis.stop());
  return redis;
}

describe('webhooks through a standalone Redis that fails mid-stream', () => {
  it('loses and duplicates nothing when Redis is frozen for twice the command timeout', async () => {
    const redis = await standaloneRedis();
    const report = await runOneFault({
      env: { REDIS_URL: redis.url },
      inject: async () => {
        redis.freeze();
        await new Promise((resolve) => setTimeout(resolve, 2 * FAULT_COMMAND_TIMEOUT_MS));
        redis.thaw();
      },
    });
    expect(report.refusedAttempts).toBeGreaterThan(0); // the fault did reach the webhook path
    expectNoLossNoDuplicate(report);
  }, 60_000);

  it('loses and duplicates nothing when Redis restarts with append-only persistence', async () => {
    const redis = await standaloneRedis();
    expectNoLossNoDuplicate(await runOneFault({ env: { REDIS_URL: redis.url }, inject: () => redis.restart() }));
  }, 60_000);

  it('loses and duplicates nothing when one of three instances is killed with SIGKILL', async () => {
    const redis = await standaloneRedis();
    const report = await runOneFault({
      env: { REDIS_URL: redis.url },
      // The platform's one URL is a load balancer over A and B: after A dies, retries reach B.
      receiversAB: true,
      inject: async ({ instances: [a] }) => {
        a!.process.kill('SIGKILL');
        await a!.exited;
      },
    });
    expectNoLossNoDuplicate(report);
  }, 60_000);
});
