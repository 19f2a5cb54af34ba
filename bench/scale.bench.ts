import { randomBytes } from 'node:crypto';
import { once } from 'node:events';
import { Redis } from 'ioredis';
import WebSocket from 'ws';
import { createLogger } from '@open-finance-gateway/common/logger';
import { createSandbox, type Sandbox } from '@open-finance-gateway/sandbox';
import {
  freePort,
  gatewayEnvFor,
  percentile,
  signedWebhook,
  signIn,
  startGatewayProcess,
  type Measured,
} from './support/processes.js';

/**
 * `npm run bench:scale`: the cost of sharing state on Redis, measured side by side in one run.
 * - Latency: webhook POST → event on a subscriber's socket, p50/p99/max over EVENTS events, with
 *   the subscriber on the same instance and state in memory (the floor) against the subscriber on
 *   another instance with state on Redis (ledger claim, stream append, the other instance's read).
 * - Ingest: verified webhooks per second at CONCURRENCY, in memory against Redis.
 * Gateways run as separate processes (`node dist/main.js`, built by the npm script, at LOG_LEVEL
 * info as in production) against one sandbox in this process; Redis at REDIS_URL (default 127.0.0.1:6379) under a key prefix deleted afterwards.
 */
const EVENTS = Number(process.env.BENCH_EVENTS ?? 1_000);
const INGEST = Number(process.env.BENCH_INGEST ?? 3_000);
const CONCURRENCY = 16;
const REDIS_URL = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';

async function subscriber(gateway: Measured, publicUrl: string, cookie: string) {
  const socket = new WebSocket(`ws://127.0.0.1:${gateway.port}/graphql`, 'graphql-transport-ws', {
    headers: { origin: publicUrl, cookie },
  });
  await once(socket, 'open');
  socket.send(JSON.stringify({ type: 'connection_init' }));
  await once(socket, 'message');
  socket.send(
    JSON.stringify({ id: '1', type: 'subscribe', payload: { query: 'subscription { incomeEvents { incomeId } }' } }),
  );
  const waiting = new Map<string, () => void>();
  let anything: (() => void) | undefined;
  socket.on('message', (data) => {
    const message = JSON.parse(String(data)) as {
      type: string;
      payload?: { data?: { incomeEvents?: { incomeId: string } } };
    };
    const id = message.payload?.data?.incomeEvents?.incomeId;
    if (id) waiting.get(id)?.();
    if (id) anything?.();
  });
  return {
    arrival: (id: string) => new Promise<void>((resolve) => waiting.set(id, resolve)),
    /** Resolves on the next event of any id (to know the subscription is live). */
    any: () => new Promise<void>((resolve) => (anything = resolve)),
    close: () => socket.close(),
  };
}

async function post(sandbox: Sandbox, gateway: Measured, state: string, id: string): Promise<Response> {
  const { body, headers } = signedWebhook(sandbox, {
    webhook_type: 'INCOME',
    webhook_code: 'UPDATE',
    state,
    item_id: id,
  });
  return fetch(`${gateway.url}/webhooks`, { method: 'POST', headers, body });
}

async function scenario(name: string, shared: Record<string, string>, instances: 1 | 2) {
  // A sandbox per scenario: webhook subscriptions of an earlier deployment must not be picked up.
  const sandbox = createSandbox({
    logger: createLogger({ level: 'silent' }),
    headerPrefix: 'X-Service',
    webhookTimeScale: 3_600,
    recordRequests: true,
  });
  await sandbox.start();
  const publicPort = await freePort();
  const publicUrl = `http://localhost:${publicPort}`;
  sandbox.registerRedirectUri(`${publicUrl}/auth/callback`);
  const env = { ...gatewayEnvFor(sandbox, publicUrl, randomBytes(32).toString('base64url')), ...shared };
  const gateways = await Promise.all(Array.from({ length: instances }, () => startGatewayProcess(env)));
  const [ingress, egress] = [gateways[0]!, gateways.at(-1)!];
  sandbox.setWebhookUrl(`${ingress.url}/webhooks`);
  const { cookie, state } = await signIn(publicUrl, egress, sandbox);
  const listener = await subscriber(egress, publicUrl, cookie);
  // The subscription is live once a probe comes through (graphql-ws does not acknowledge subscribe).
  for (let probe = 0; ; probe += 1) {
    const arrived = listener.any();
    await post(sandbox, ingress, state, `probe_${name}_${probe}`);
    if (
      await Promise.race([
        arrived.then(() => true),
        new Promise<false>((resolve) => setTimeout(() => resolve(false), 200)),
      ])
    )
      break;
  }

  const latencies: number[] = [];
  for (let n = 0; n < EVENTS; n += 1) {
    const id = `income_${name}_${n}`;
    const arrived = listener.arrival(id);
    const started = performance.now();
    const response = await post(sandbox, ingress, state, id);
    if (response.status !== 200) throw new Error(`webhook answered ${response.status}`);
    await arrived;
    latencies.push(performance.now() - started);
  }
  listener.close();

  let next = 0;
  const ingestStarted = performance.now();
  await Promise.all(
    Array.from({ length: CONCURRENCY }, async () => {
      while (next < INGEST) {
        const response = await post(sandbox, ingress, state, `ingest_${name}_${next++}`);
        if (response.status !== 200) throw new Error(`webhook answered ${response.status}`);
      }
    }),
  );
  const perSecond = INGEST / ((performance.now() - ingestStarted) / 1000);
  for (const gateway of gateways) await gateway.stop();
  await sandbox.stop();
  latencies.sort((a, b) => a - b);
  return { p50: percentile(latencies, 50), p99: percentile(latencies, 99), max: latencies.at(-1)!, perSecond };
}

async function main(): Promise<void> {
  const prefix = `ofg-bench-${randomBytes(4).toString('hex')}:`;
  const redisEnv = {
    REDIS_URL,
    REDIS_KEY_PREFIX: prefix,
    TOKEN_ENCRYPTION_KEYS: `k1:${randomBytes(32).toString('base64')}`,
  };
  try {
    // Interleaved twice, so neither side always runs on a warmer machine.
    type Figures = Awaited<ReturnType<typeof scenario>>;
    const runs: Array<{ memory: Figures; redis: Figures }> = [];
    for (let round = 0; round < 2; round += 1) {
      runs.push({ memory: await scenario(`m${round}`, {}, 1), redis: await scenario(`r${round}`, redisEnv, 2) });
    }
    const best = (pick: (run: (typeof runs)[number]) => Figures) => runs.map(pick).sort((a, b) => a.p99 - b.p99)[0]!;
    const memory = best((run) => run.memory);
    const redis = best((run) => run.redis);
    const ms = (value: number) => `${value.toFixed(2)} ms`;
    console.log(
      `\nwebhook → subscriber over ${EVENTS} events (best of ${runs.length} interleaved runs), ingest of ${INGEST} webhooks at concurrency ${CONCURRENCY}\n`,
    );
    console.log('| | p50 | p99 | max | ingest/s |');
    console.log('|---|---|---|---|---|');
    console.log(
      `| one instance, in memory | ${ms(memory.p50)} | ${ms(memory.p99)} | ${ms(memory.max)} | ${memory.perSecond.toFixed(0)} |`,
    );
    console.log(
      `| across instances, Redis | ${ms(redis.p50)} | ${ms(redis.p99)} | ${ms(redis.max)} | ${redis.perSecond.toFixed(0)} |`,
    );
    console.log(
      `\np99 difference: ${ms(redis.p99 - memory.p99)} (goal ≤ 2 ms); ingest ratio: ${((redis.perSecond / memory.perSecond) * 100).toFixed(0)}% (goal ≥ 70%)`,
    );
  } finally {
    const redis = new Redis(REDIS_URL);
    const keys = await redis.keys(`${prefix}*`);
    if (keys.length > 0) await redis.del(...keys);
    redis.disconnect();
  }
}

void main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
