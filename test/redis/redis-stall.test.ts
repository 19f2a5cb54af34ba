import { describe, expect, it } from 'vitest';
import { sha256Hex } from '@open-finance-gateway/common/ids';
import { userTag } from '../../src/redis/redis-keys.js';
import { startGateway, type TestGateway } from '../support/gateway.js';
import { testPrefix, testRedis, tokenKeysSetting } from '../support/redis.js';
import { socketClient, subscribe } from '../support/sockets.js';
import { gatewayOnStallableRedis } from '../support/stallable-redis.js';
import { deliver, signedHeaders, signedInUser } from '../support/webhooks.js';

const income = (state: string, item: string) =>
  JSON.stringify({ webhook_type: 'INCOME', webhook_code: 'UPDATE', state, item_id: item });

type IncomeFrame = { incomeEvents: { incomeId: string; cursor: string } };

/** POSTs a signed webhook and keeps the response headers (Retry-After). */
async function post(gateway: TestGateway, body: string) {
  const headers = new Headers({ 'content-type': 'application/json' });
  for (const [name, value] of signedHeaders(gateway, body)) headers.append(name, value);
  const response = await fetch(`${gateway.url}/webhooks`, { method: 'POST', headers, body });
  return { status: response.status, retryAfter: response.headers.get('retry-after'), body: await response.json() };
}

/** Asks `/readyz` until it answers `status`, for at most `withinMs`; returns the last answer. */
async function readinessBecomes(gateway: TestGateway, status: number, withinMs: number) {
  const deadline = performance.now() + withinMs;
  for (;;) {
    const response = await fetch(`${gateway.url}/readyz`);
    const body = (await response.json()) as { status: string; reason?: string };
    if (response.status === status || performance.now() > deadline) return { status: response.status, body };
  }
}

describe('when Redis stalls', () => {
  it('a webhook refused during the stall is processed on the platform’s retry, reaching the subscriber exactly once and replayable', async () => {
    const { redis, gateway } = await gatewayOnStallableRedis();
    const { browser, state } = await signedInUser(gateway);
    const query = 'subscription ($after: String) { incomeEvents(after: $after) { incomeId cursor } }';
    const live = await subscribe<IncomeFrame>(gateway, socketClient(gateway, browser).client, query, 'INCOME');
    const before = income(state, 'income_before');
    expect((await deliver(gateway, before, signedHeaders(gateway, before))).status).toBe(200);
    const first = (await live.next()).data!.incomeEvents;
    expect(first.incomeId).toBe('income_before');

    const stalled = income(state, 'income_during_stall');
    redis.pause();
    const refused = await post(gateway, stalled);
    redis.resume();
    expect(refused.status).toBe(503);
    expect(refused.retryAfter).not.toBeNull();

    // The platform retries the same bytes: processed, not answered "duplicate".
    expect(await post(gateway, stalled)).toMatchObject({ status: 200, body: { status: 'published' } });
    expect((await live.next()).data!.incomeEvents.incomeId).toBe('income_during_stall');
    const after = income(state, 'income_after');
    expect((await deliver(gateway, after, signedHeaders(gateway, after))).status).toBe(200);
    // The next event is the later one: the stalled one was not delivered twice.
    expect((await live.next()).data!.incomeEvents.incomeId).toBe('income_after');

    const replay = await subscribe<IncomeFrame>(gateway, socketClient(gateway, browser).client, query, 'INCOME', {
      after: first.cursor,
    });
    expect((await replay.next()).data!.incomeEvents.incomeId).toBe('income_during_stall');
    expect((await replay.next()).data!.incomeEvents.incomeId).toBe('income_after');
  }, 30_000);

  it('/readyz answers 503 "redis: slow" within two seconds of a stall, 200 within two seconds of its end, and "redis: down" once Redis is gone', async () => {
    const { redis, gateway } = await gatewayOnStallableRedis({ METRICS_PORT: '0' });
    expect((await fetch(`${gateway.url}/readyz`)).status).toBe(200);

    redis.pause();
    expect(await readinessBecomes(gateway, 503, 2_000)).toEqual({
      status: 503,
      body: { status: 'unavailable', reason: 'redis: slow' },
    });
    expect((await fetch(`${gateway.url}/healthz`)).status).toBe(200);
    redis.resume();
    expect(await readinessBecomes(gateway, 200, 2_000)).toEqual({ status: 200, body: { status: 'ready' } });

    await redis.kill();
    expect(await readinessBecomes(gateway, 503, 2_000)).toEqual({
      status: 503,
      body: { status: 'unavailable', reason: 'redis: down' },
    });
    const metrics = await (await fetch(gateway.app.metricsUrl!)).text();
    expect(metrics).toMatch(/gateway_readiness_failures_total\{reason="redis: slow"\} [1-9]/);
    expect(metrics).toMatch(/gateway_readiness_failures_total\{reason="redis: down"\} [1-9]/);
  }, 30_000);
});

describe('a delivery another request is processing', () => {
  it('is answered 503 with Retry-After, never "duplicate"; once its lease runs out the retry is processed', async () => {
    const prefix = testPrefix();
    const gateway = await startGateway({
      REDIS_URL: process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379',
      REDIS_KEY_PREFIX: prefix,
      TOKEN_ENCRYPTION_KEYS: tokenKeysSetting(),
    });
    const { appUser, state } = await signedInUser(gateway);
    const body = income(state, 'income_in_progress');
    // Claimed by another instance that is still at work (or was killed mid-way).
    const claim = `${prefix}{u:${userTag(appUser)}}:delivery:${sha256Hex(body)}`;
    const redis = testRedis();
    await redis.set(claim, 'p:another-instance', 'PX', 60_000);

    const busy = await post(gateway, body);
    expect(busy.status).toBe(503);
    expect(Number(busy.retryAfter)).toBeGreaterThanOrEqual(1);
    expect(Number(busy.retryAfter)).toBeLessThanOrEqual(60);
    expect(gateway.published).toHaveLength(0);

    // The other instance died: its lease runs out.
    await redis.pexpire(claim, 1);
    while ((await redis.exists(claim)) === 1); // gone within a millisecond or two
    expect(await post(gateway, body)).toMatchObject({ status: 200, body: { status: 'published' } });
    expect(await post(gateway, body)).toMatchObject({ status: 200, body: { status: 'duplicate' } });
    expect(gateway.published.filter((event) => event.type === 'INCOME')).toHaveLength(1);
  });
});
