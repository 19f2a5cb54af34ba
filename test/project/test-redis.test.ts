import { once } from 'node:events';
import { createServer } from 'node:net';
import { Redis } from 'ioredis';
import { describe, expect, it } from 'vitest';
import { track } from '../support/leftovers.js';
import { answersPing, suiteRedis } from '../support/test-redis.js';

/** A port nothing listens on: bound, then released. */
async function unusedPort(): Promise<number> {
  const server = createServer().listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as { port: number };
  server.close();
  await once(server, 'close');
  return port;
}

describe("the suite's Redis", () => {
  it('is TEST_REDIS_URL when given, whatever else runs', async () => {
    const redis = await suiteRedis({ TEST_REDIS_URL: 'redis://example.invalid:1' });
    expect(redis.url).toBe('redis://example.invalid:1');
  });

  it('starts a private redis-server when none answers, and stops it afterwards', async () => {
    const redis = await suiteRedis({}, await unusedPort());
    track(() => redis.stop());
    const port = Number(new URL(redis.url).port);
    const client = new Redis(redis.url, { maxRetriesPerRequest: 1 });
    expect(await client.set('ofg-suite-probe', 'ok')).toBe('OK');
    client.disconnect();
    await redis.stop();
    expect(await answersPing(port)).toBe(false);
  });

  it('is the server that already answers on the default port', async () => {
    const running = await suiteRedis({}, await unusedPort());
    track(() => running.stop());
    const port = Number(new URL(running.url).port);
    const found = await suiteRedis({}, port);
    expect(found.url).toBe(`redis://127.0.0.1:${port}`);
    await found.stop();
    expect(await answersPing(port)).toBe(true);
  });
});
