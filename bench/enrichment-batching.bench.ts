import 'reflect-metadata';
import { createApp } from '../src/app.js';
import { loadConfig } from '../src/config/config.js';
import { createLogger } from '../src/lib/logger.js';
import { MERCHANTS } from '../src/sandbox/data/merchants.js';

/**
 * Prints figures for enrichment through the gateway on the embedded sandbox: latency of one
 * GraphQL request at several sizes, and how many upstream calls it took. Cache off, so every
 * request goes upstream. Loopback only; bounded iterations.
 */
const SIZES = [1, 10, 100, 250, 1000];
const ITERATIONS = 30;

async function signIn(url: string): Promise<string> {
  const cookies = new Map<string, string>();
  const go = async (target: string, init: RequestInit = {}) => {
    const response = await fetch(target, { ...init, redirect: 'manual', headers: { ...(init.headers as Record<string, string>), cookie: [...cookies].map(([k, v]) => `${k}=${v}`).join('; ') } });
    for (const header of response.headers.getSetCookie()) {
      const [pair] = header.split(';');
      const [name, value] = pair!.split('=');
      cookies.set(name!, value!);
    }
    return response;
  };
  const authorize = new URL((await go(`${url}/auth/login`)).headers.get('location')!);
  const consent = await (await go(authorize.href)).text();
  const form = new URLSearchParams(authorize.searchParams);
  form.set('user', /name="user" value="([^"]+)"/.exec(consent)![1]!);
  form.set('decision', 'allow');
  const back = (await go(`${authorize.origin}/oauth/authorize`, { method: 'POST', body: form })).headers.get('location')!;
  await go(back);
  return [...cookies].map(([k, v]) => `${k}=${v}`).join('; ');
}

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;
}

async function main(): Promise<void> {
  const app = createApp(loadConfig({ PORT: '0', HOST: '127.0.0.1', ENRICHMENT_CACHE_TTL_SECONDS: '0' }), { logger: createLogger({ level: 'silent' }), sandbox: { recordRequests: true } });
  await app.start();
  try {
    const cookie = await signIn(app.url);
    const query = 'query ($q: [EnrichmentQueryInput!]!) { enrich(queries: $q) { id confidence merchant { name } category { name } } }';
    process.stdout.write(`enrichment through the gateway (batch limit 100, cache off, ${ITERATIONS} requests per size)\n`);
    process.stdout.write('queries/request  upstream calls/request  p50 ms  p95 ms  queries/s\n');
    for (const size of SIZES) {
      const before = app.sandbox!.requests({ path: '/v1/search' }).length;
      const timings: number[] = [];
      for (let i = 0; i < ITERATIONS; i += 1) {
        const q = Array.from({ length: size }, (_, j) => ({ id: `${j}`, description: `${MERCHANTS[j % MERCHANTS.length]!.sample} ${i}-${j}` }));
        const started = performance.now();
        const response = await fetch(`${app.url}/graphql`, { method: 'POST', headers: { 'content-type': 'application/json', cookie }, body: JSON.stringify({ query, variables: { q } }) });
        const body = (await response.json()) as { errors?: unknown };
        if (body.errors) throw new Error(JSON.stringify(body.errors));
        timings.push(performance.now() - started);
      }
      const calls = (app.sandbox!.requests({ path: '/v1/search' }).length - before) / ITERATIONS;
      timings.sort((a, b) => a - b);
      const p50 = percentile(timings, 50);
      process.stdout.write(
        `${String(size).padStart(15)}  ${calls.toFixed(1).padStart(22)}  ${p50.toFixed(1).padStart(6)}  ${percentile(timings, 95).toFixed(1).padStart(6)}  ${((size / p50) * 1000).toFixed(0).padStart(9)}\n`,
      );
    }
    const memory = process.memoryUsage();
    process.stdout.write(`rss ${(memory.rss / 1048576).toFixed(0)} MiB, heap used ${(memory.heapUsed / 1048576).toFixed(0)} MiB (gateway and sandbox in one process)\n`);
  } finally {
    await app.stop();
  }
}

void main();
