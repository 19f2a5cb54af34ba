import { randomBytes } from 'node:crypto';
import { loadavg } from 'node:os';
import { Redis } from 'ioredis';
import { createLogger } from '@open-finance-gateway/common/logger';
import { createSandbox, type Sandbox } from '@open-finance-gateway/sandbox';
import { SEEN_MAX_OBJECTS } from '../src/event-log/event-log.js';
import { userTag } from '../src/redis/redis-keys.js';
import {
  freePort,
  gatewayEnvFor,
  percentile,
  signedWebhook,
  signIn,
  startGatewayProcess,
  type Measured,
} from './support/processes.js';
import { daysWithStore, simulatedDays, type DayCosts } from './support/simulated-day.js';

/**
 * `npm run bench:user-data`: the user-data store against today's code (USER_DATA_STORE=off), in
 * one run, on the shared Redis (REDIS_URL, default 127.0.0.1:6379, under a prefix of its own):
 * 1. a page of 100 enriched transactions with CORE_LATENCY_MS (default 150) on every core call:
 *    the store off, the store cold (the user's kept data deleted before each read: a first open),
 *    warm, and warm after a TRANSACTION DEFAULT_UPDATE naming a new row; p50, p99 and core calls
 *    per page (the webhook's own read by id counted apart);
 * 2. two simulated days: 1,000 users opening the app 10 times a day between 07:00 and 23:00, with
 *    the webhooks of two platform refreshes a day (an ACCOUNT UPDATE per account, a TRANSACTION
 *    DEFAULT_UPDATE for half of them) and three card spends; the real store, read path and
 *    webhook changes on a virtual clock (bench/support/simulated-day.ts); platform calls per day
 *    against the fewest possible, at several maximum ages, and with the store off;
 * 3. Redis memory for one user with a 90-day history, every page of it read, and the hash of what
 *    their subscribers were given (content digests), now and at its bound.
 */
const CORE_LATENCY_MS = Number(process.env.CORE_LATENCY_MS ?? 150);
const RUNS = Number(process.env.BENCH_RUNS ?? 20);
const REDIS_URL = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
const PAGE = `query ($after: String, $accountId: ID) {
  transactions(first: 100, after: $after, accountId: $accountId) {
    nodes { id description amount enrichment { merchant { name } category { name } } }
    pageInfo { hasNextPage endCursor }
  }
}`;

let coreCalls = 0;

interface Target {
  name: string;
  process: Measured;
  cookie: string;
}

async function graphql(target: Target, query: string, variables: Record<string, unknown> = {}) {
  const started = performance.now();
  const response = await fetch(`${target.process.url}/graphql`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', cookie: target.cookie },
    body: JSON.stringify({ query, variables }),
  });
  const body = (await response.json()) as { errors?: unknown; data?: Record<string, unknown> };
  if (response.status !== 200 || body.errors || !body.data)
    throw new Error(`${target.name}: ${response.status} ${JSON.stringify(body.errors ?? body).slice(0, 300)}`);
  return { ms: performance.now() - started, data: body.data };
}

/** `runs` timed pages, each after `before` (not timed); latency and core calls per page. */
async function pages(target: Target, runs: number, before: () => Promise<void> = async () => undefined) {
  const latencies: number[] = [];
  let calls = 0;
  for (let n = 0; n < runs; n += 1) {
    await before();
    const callsBefore = coreCalls;
    latencies.push((await graphql(target, PAGE)).ms);
    calls += coreCalls - callsBefore;
  }
  latencies.sort((a, b) => a - b);
  return { p50: percentile(latencies, 50), p99: percentile(latencies, 99), calls: calls / runs };
}

/**
 * The hash of what a user's subscribers were last given (content digests, beside their event log):
 * its size now, and at its bound (SEEN_MAX_OBJECTS objects of the same shape, in a scratch key).
 */
async function seenMemory(redis: Redis, key: string, scratch: string) {
  const usage = async (name: string) => Number((await redis.call('MEMORY', 'USAGE', name, 'SAMPLES', '0')) ?? 0);
  const fields = Array.from({ length: SEEN_MAX_OBJECTS }, () => [
    randomBytes(8).toString('hex'),
    randomBytes(16).toString('hex'),
  ]).flat();
  await redis.hset(scratch, ...fields);
  const bound = await usage(scratch);
  await redis.del(scratch);
  return { now: await usage(key), objects: await redis.hlen(key), bound };
}

async function main(): Promise<void> {
  const load = loadavg()
    .map((value) => value.toFixed(2))
    .join(' ');
  const sandbox: Sandbox = createSandbox({
    logger: createLogger({ level: 'silent' }),
    headerPrefix: 'X-Service',
    webhookTimeScale: 3_600,
  });
  await sandbox.start();
  // Every read of the kept kinds, the by-id POST included (not the signing key, not webhook registrations).
  sandbox.onRequest((request) => {
    if (request.service === 'core' && /^\/v1\/(me|accounts|transactions)/.test(request.path)) coreCalls += 1;
  });
  const publicUrl = `http://localhost:${await freePort()}`;
  sandbox.registerRedirectUri(`${publicUrl}/auth/callback`);
  const prefix = `ofg-bench-${randomBytes(4).toString('hex')}:`;
  const base = {
    ...gatewayEnvFor(sandbox, publicUrl, randomBytes(32).toString('base64url')),
    REDIS_URL,
    REDIS_KEY_PREFIX: prefix,
    TOKEN_ENCRYPTION_KEYS: `k1:${randomBytes(32).toString('base64')}`,
  };
  // BENCH_ENTRY: another build's main.js (a baseline copied aside); BENCH_PROFILE_DIR: the store's
  // gateway under --cpu-prof (written there when it stops).
  const entry = process.env.BENCH_ENTRY;
  const profile = process.env.BENCH_PROFILE_DIR
    ? ['--cpu-prof', `--cpu-prof-dir=${process.env.BENCH_PROFILE_DIR}`]
    : [];
  const [on, off] = await Promise.all([
    startGatewayProcess({ ...base, USER_DATA_STORE: 'redis' }, entry, profile),
    // A deployment of its own (another prefix): an instance without the store beside one with it is
    // an instance that keeps nothing current, and the one with it would read through (see redis-shape-census.ts).
    startGatewayProcess({ ...base, REDIS_KEY_PREFIX: `${prefix.slice(0, -1)}-off:`, USER_DATA_STORE: 'off' }, entry),
  ]);
  const redis = new Redis(REDIS_URL);
  sandbox.setWebhookUrl(`${on.url}/webhooks`);
  try {
    const signedOn = await signIn(publicUrl, on, sandbox);
    const store: Target = { name: 'store', process: on, cookie: signedOn.cookie };
    const today: Target = { name: 'off', process: off, cookie: (await signIn(publicUrl, off, sandbox)).cookie };
    const world = sandbox.world();
    const accountIds = world.accounts
      .filter((account) => account.sandboxUserId === signedOn.userId && account.sandboxShared)
      .map((account) => account._id);
    const out: string[] = [`machine load (1, 5, 15 min): ${load}`, ''];

    // 1. A page of 100 enriched transactions, CORE_LATENCY_MS per core call.
    sandbox.setCoreFault({ delayMs: CORE_LATENCY_MS });
    await graphql(today, PAGE);
    await graphql(store, PAGE); // the enrichment cache warm for both: the difference is the store
    const appUser = sandbox.identity.users.byEmail('aroha@demo.example')!.sub;
    const key = `${prefix}{u:${userTag(appUser)}}:user-data`;
    const forgotten = async () => void (await redis.del(key));
    // A row settles and is announced: the webhook reads it by id (once), and the page shows it.
    let webhookCalls = 0;
    const settled = async () => {
      const template = world.transactions.find((row) => row._account === accountIds[0])!;
      const row = { ...template, _id: `trans_${randomBytes(8).toString('hex')}`, date: new Date().toISOString() };
      world.transactions.unshift(row);
      const hook = signedWebhook(sandbox, {
        webhook_type: 'TRANSACTION',
        webhook_code: 'DEFAULT_UPDATE',
        state: signedOn.state,
        item_id: accountIds[0],
        new_transactions: 1,
        new_transaction_ids: [row._id],
      });
      const callsBefore = coreCalls;
      const answer = await fetch(`${on.url}/webhooks`, { method: 'POST', headers: hook.headers, body: hook.body });
      if (answer.status !== 200) throw new Error(`webhook answered ${answer.status}`);
      webhookCalls += coreCalls - callsBefore;
    };
    const offPage = await pages(today, RUNS);
    const coldPage = await pages(store, RUNS, forgotten);
    const warmPage = await pages(store, RUNS);
    const afterWebhook = await pages(store, RUNS, settled);
    sandbox.setCoreFault({});
    const row = (name: string, r: { p50: number; p99: number; calls: number }) =>
      `| ${name} | ${r.p50.toFixed(1)} ms | ${r.p99.toFixed(1)} ms | ${r.calls.toFixed(1)} |`;
    out.push(
      `1. A page of 100 enriched transactions, ${CORE_LATENCY_MS} ms per core call, ${RUNS} pages each`,
      '',
      '| | p50 | p99 | core calls per page |',
      '|---|---|---|---|',
      row('store off', offPage),
      row('store on, cold (nothing kept: a first open)', coldPage),
      row('store on, warm', warmPage),
      row('store on, warm after a DEFAULT_UPDATE naming a new row', afterWebhook),
      '',
      `the webhook's own read by id: ${(webhookCalls / RUNS).toFixed(1)} core calls per webhook (POST /v1/transactions/ids, counted apart from the pages)`,
      '',
      `warm p50 / cold p50: 1/${(coldPage.p50 / warmPage.p50).toFixed(0)}; warm p50 / off p50: 1/${(offPage.p50 / warmPage.p50).toFixed(0)}`,
      '',
    );

    // 2. Two simulated days.
    const days = simulatedDays(1_000, 2);
    const runs: Array<[string, DayCosts]> = [];
    for (const [name, maxAge] of [
      ['store on, USER_DATA_MAX_AGE_SECONDS=86400 (default)', 86_400_000],
      ['store on, USER_DATA_MAX_AGE_SECONDS=21600 (6 h)', 21_600_000],
      ['store on, USER_DATA_MAX_AGE_SECONDS=3600 (1 h)', 3_600_000],
      ['store off', undefined],
    ] as const)
      runs.push([name, await daysWithStore(days, maxAge)]);
    const floor = runs[0]![1].floor;
    const ratio = (calls: number, day: number) => `${(calls / floor[day]!).toFixed(3)}x`;
    out.push(
      `2. Two simulated days: 1,000 users x 10 opens a day, ${runs[0]![1].webhooks[0]!.toLocaleString('en')} webhooks a day`,
      '',
      '| | day 1 calls | day 1 / floor | day 2 calls | day 2 / floor |',
      '|---|---|---|---|---|',
      `| the floor: a cold open per user (3 reads), one read per changed account or set of changed ids | ${floor[0]!.toLocaleString('en')} | 1x | ${floor[1]!.toLocaleString('en')} | 1x |`,
      ...runs.map(
        ([name, costs]) =>
          `| ${name} | ${costs.calls[0]!.toLocaleString('en')} | ${ratio(costs.calls[0]!, 0)} | ${costs.calls[1]!.toLocaleString('en')} | ${ratio(costs.calls[1]!, 1)} |`,
      ),
      '',
    );

    // 3. Redis memory for one user: every page of the 90-day history, all accounts and each one.
    await redis.del(key);
    await graphql(store, '{ me { id } accounts { id } }');
    for (const accountId of [undefined, ...accountIds]) {
      let after: string | undefined;
      do {
        const { data } = await graphql(store, PAGE, { after, accountId });
        const page = data.transactions as { pageInfo: { hasNextPage: boolean; endCursor: string } };
        after = page.pageInfo.hasNextPage ? page.pageInfo.endCursor : undefined;
      } while (after);
    }
    const bytes = Number(await redis.call('MEMORY', 'USAGE', key, 'SAMPLES', '0'));
    const history = world.transactions.filter((row) => accountIds.includes(row._account));
    const fields = (await redis.hkeys(key)).filter((field) => field.startsWith('e:'));
    const blocks = fields.filter((field) => /^e:ta\|L\d+$/.test(field)).length;
    const first = new Date(history.at(-1)!.date).toISOString().slice(0, 10);
    const seen = await seenMemory(redis, `${prefix}{u:${userTag(appUser)}}:seen`, `${prefix}bench:seen-bound`);
    const kib = (n: number) => `${(n / 1024).toFixed(1)} KiB`;
    const per300 = (n: number) => kib((n / history.length) * 300);
    out.push(
      `3. Redis memory for one user: ${history.length} transactions since ${first} on ${accountIds.length} accounts, every page read across all accounts and per account (${fields.length} fields: me, the list, the ledger's meta and its ${blocks} blocks, each row kept once)`,
      '',
      '| | MEMORY USAGE | per 300 transactions |',
      '|---|---|---|',
      `| the user's hash (kept data) | ${kib(bytes)} | ${per300(bytes)} |`,
      `| what subscribers were given (digests), after section 1's webhooks (${seen.objects} objects) | ${kib(seen.now)} | |`,
      `| the same at its bound (${SEEN_MAX_OBJECTS} objects) | ${kib(seen.bound)} | |`,
      `| both, the digests at their bound | ${kib(bytes + seen.bound)} | ${per300(bytes + seen.bound)} |`,
      '',
    );
    process.stdout.write(`${out.join('\n')}\n`);
  } finally {
    const keys = await redis.keys(`${prefix}*`);
    if (keys.length > 0) await redis.del(...keys);
    redis.disconnect();
    await Promise.all([on.stop(), off.stop()]);
    await sandbox.stop();
  }
}

main().catch((error: unknown) => {
  process.stderr.write(`${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
  process.exit(1);
});
