import { describe, expect, it } from 'vitest';
import { startFaultyRedis } from '../support/fault-redis.js';
import { FAULT_COMMAND_TIMEOUT_MS as COMMAND_TIMEOUT_MS, runOneFault } from '../support/fault-run.js';
import { startInstance } from '../support/instances.js';
import { track } from '../support/leftovers.js';
import { tokenKeysSetting } from '../support/redis.js';
import { startTcpProxy } from '../support/tcp-proxy.js';
import { expectNoLossNoDuplicate } from './fault-expectations.js';

/** Polls /readyz until it answers `status`; resolves with the milliseconds that took (or Infinity past `limitMs`). */
async function readinessBecomes(url: string, status: number, limitMs: number): Promise<number> {
  const started = performance.now();
  while (performance.now() - started < limitMs) {
    const answer = await fetch(`${url}/readyz`, { signal: AbortSignal.timeout(limitMs) }).catch(() => undefined);
    if (answer?.status === status) return performance.now() - started;
    // A probe's interval, as a load balancer's health check has one.
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  return Infinity;
}

describe('webhooks and readiness when the network to Redis misbehaves', () => {
  it('loses and duplicates nothing through a proxy that adds latency and cuts connections', async () => {
    const redis = await startFaultyRedis();
    track(() => redis.stop());
    const proxy = await startTcpProxy({ host: '127.0.0.1', port: redis.port });
    track(() => proxy.close());
    const report = await runOneFault({
      env: { REDIS_URL: `redis://127.0.0.1:${proxy.port}` },
      inject: async () => {
        // Round trips just over the command timeout, then every connection cut twice.
        proxy.setLatency(COMMAND_TIMEOUT_MS / 2 + 20);
        await new Promise((resolve) => setTimeout(resolve, 2 * COMMAND_TIMEOUT_MS));
        proxy.cutAll();
        proxy.setLatency(0);
        await new Promise((resolve) => setTimeout(resolve, COMMAND_TIMEOUT_MS));
        proxy.cutAll();
      },
    });
    expect(report.refusedAttempts).toBeGreaterThan(0); // the fault did reach the webhook path
    expectNoLossNoDuplicate(report);
  }, 60_000);

  it('reports not ready within two seconds of a Redis stall and ready within two seconds of recovery', async () => {
    const redis = await startFaultyRedis();
    track(() => redis.stop());
    const instance = await startInstance('R', {
      REDIS_URL: redis.url,
      REDIS_COMMAND_TIMEOUT_MS: String(COMMAND_TIMEOUT_MS),
      TOKEN_ENCRYPTION_KEYS: tokenKeysSetting(),
      HOST: '127.0.0.1',
      SHUTDOWN_DELAY_MS: '0',
    });
    expect(await readinessBecomes(instance.url, 200, 2_000)).toBeLessThan(2_000);
    redis.freeze();
    let notReadyAfterMs: number;
    try {
      notReadyAfterMs = await readinessBecomes(instance.url, 503, 2_500);
    } finally {
      redis.thaw();
    }
    const readyAfterMs = await readinessBecomes(instance.url, 200, 2_500);
    expect({ notReadyWithin2s: notReadyAfterMs <= 2_000, readyWithin2s: readyAfterMs <= 2_000 }).toEqual({
      notReadyWithin2s: true,
      readyWithin2s: true,
    });
  }, 30_000);
});
