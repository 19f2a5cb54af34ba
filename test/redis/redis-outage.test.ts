import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { MeDocument } from '../__generated__/graphql.js';
import { execute, startGateway } from '../support/gateway.js';
import { freePort } from '../support/instances.js';
import { track } from '../support/leftovers.js';
import { startRedisServer } from '../support/redis-server.js';
import { tokenKeysSetting } from '../support/redis.js';
import { socketClient, subscribe } from '../support/sockets.js';
import { deliver, signedHeaders, signedInUser } from '../support/webhooks.js';

/** A Redis of this test's own (append-only file in a temp dir, so a restart keeps the data). */
async function ownRedis(port: number, dir: string) {
  const { process: child, exited } = await startRedisServer(port, ['--appendonly', 'yes', '--dir', dir]);
  track(async () => {
    if (child.exitCode === null) {
      child.kill('SIGKILL');
      await exited;
    }
  });
  return {
    async stop() {
      child.kill('SIGKILL');
      await exited;
    },
  };
}

describe('when Redis fails', () => {
  it('fails readiness, answers webhooks 503 and GraphQL SERVICE_UNAVAILABLE quickly, keeps sockets, then recovers', async () => {
    const port = await freePort();
    const dir = mkdtempSync(join(tmpdir(), 'ofg-redis-'));
    track(() => rmSync(dir, { recursive: true, force: true }));
    let redis = await ownRedis(port, dir);
    const gateway = await startGateway({
      REDIS_URL: `redis://127.0.0.1:${port}`,
      TOKEN_ENCRYPTION_KEYS: tokenKeysSetting(),
      REDIS_COMMAND_TIMEOUT_MS: '500',
    });
    const { browser, state } = await signedInUser(gateway);
    const { client, closed } = socketClient(gateway, browser);
    const events = await subscribe<{ incomeEvents: { code: string; incomeId: string } }>(
      gateway,
      client,
      'subscription { incomeEvents { code incomeId } }',
      'INCOME',
    );
    let socketClosed = false;
    void closed.then(() => (socketClosed = true));

    await redis.stop();
    await gateway.waitForEvent('redis-client', (event) => event.role === 'commands' && event.state === 'lost');
    const readiness = await fetch(`${gateway.url}/readyz`);
    expect(readiness.status).toBe(503);
    const body = JSON.stringify({ webhook_type: 'INCOME', webhook_code: 'UPDATE', state, item_id: 'income_during' });
    expect((await deliver(gateway, body, signedHeaders(gateway, body))).status).toBe(503);
    const started = performance.now();
    const refused = await execute(gateway, browser, MeDocument);
    expect(performance.now() - started).toBeLessThan(2_000);
    expect(refused.status).toBe(503);
    expect(refused.errors?.[0]?.extensions?.code).toBe('SERVICE_UNAVAILABLE');

    redis = await ownRedis(port, dir);
    await gateway.waitForEvent('redis-client', (event) => event.role === 'listener' && event.state === 'restored');
    await gateway.waitForEvent('redis-client', (event) => event.role === 'commands' && event.state === 'restored');
    expect((await fetch(`${gateway.url}/readyz`)).status).toBe(200);
    expect((await execute(gateway, browser, MeDocument)).status).toBe(200);
    const after = JSON.stringify({ webhook_type: 'INCOME', webhook_code: 'UPDATE', state, item_id: 'income_after' });
    expect((await deliver(gateway, after, signedHeaders(gateway, after))).status).toBe(200);
    expect((await events.next()).data?.incomeEvents.incomeId).toBe('income_after');
    expect(socketClosed).toBe(false);
  }, 30_000);
});
