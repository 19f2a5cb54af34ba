import { randomBytes } from 'node:crypto';
import { loadavg } from 'node:os';
import { Redis } from 'ioredis';
import { createLogger } from '@open-finance-gateway/common/logger';
import { createSandbox, type Sandbox } from '@open-finance-gateway/sandbox';
import { userTag } from '../src/redis/redis-keys.js';
import { createKeptReads } from '../src/user-data/kept-reads.js';
import { createMemoryUserDataStore } from '../src/user-data/memory-user-data-store.js';
import type { UserDataEntry } from '../src/user-data/user-data-store.js';
import { applyWebhookChange } from '../src/user-data/webhook-changes.js';
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
 * `npm run bench:user-data`: the user-data store against today's code (USER_DATA_STORE=off), in
 * one run, on the shared Redis (REDIS_URL, default 127.0.0.1:6379, under a prefix of its own):
 * 1. a page of 100 enriched transactions with CORE_LATENCY_MS (default 150) on every core call:
 *    the store off, the store cold (a signed TRANSACTION DEFAULT_UPDATE before each read drops the
 *    page), and warm; p50, p99 and core calls per page;
 * 2. a simulated day: 1,000 users opening the app 10 times each between 07:00 and 23:00, with the
 *    webhooks of two platform refreshes a day (an ACCOUNT UPDATE per account, a TRANSACTION
 *    DEFAULT_UPDATE for half of them) and three card spends; the real store and read path on a
 *    virtual clock; platform calls with the store off and on, at the default maximum age and a day;
 * 3. Redis memory for one user with a 90-day history, every page of it read.
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

/** A deterministic PRNG (mulberry32), so the simulated day is the same on every run. */
function prng(seed: number) {
  return () => {
    seed = (seed + 0x6d2b79f5) | 0;
    let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

type DayEvent =
  | { at: number; user: number; kind: 'open'; account: number | undefined }
  | { at: number; user: number; kind: 'webhook'; type: 'ACCOUNT' | 'TRANSACTION'; account: number };

/** The day's opens and webhooks, in time order. */
function simulatedDay(users: number, accounts: number): DayEvent[] {
  const random = prng(2026);
  const hour = 3_600_000;
  const events: DayEvent[] = [];
  for (let user = 0; user < users; user += 1) {
    for (let open = 0; open < 10; open += 1) {
      // One open in three also looks at one account's transactions.
      const account = random() < 1 / 3 ? Math.floor(random() * accounts) : undefined;
      events.push({ at: 7 * hour + random() * 16 * hour, user, kind: 'open', account });
    }
    // Two refreshes (the nightly one, one in the day): every balance, new rows on half the accounts.
    for (const at of [1 * hour + random() * hour, 9 * hour + random() * 10 * hour])
      for (let account = 0; account < accounts; account += 1) {
        events.push({ at, user, kind: 'webhook', type: 'ACCOUNT', account });
        if (account % 2 === 0) events.push({ at, user, kind: 'webhook', type: 'TRANSACTION', account });
      }
    // Three card spends announced on their own.
    for (let spend = 0; spend < 3; spend += 1)
      events.push({ at: 8 * hour + random() * 14 * hour, user, kind: 'webhook', type: 'TRANSACTION', account: 0 });
  }
  return events.sort((a, b) => a.at - b.at);
}

/** Platform calls for the day with the store (memory: the same read path as Redis) at `maxAgeMs`. */
async function dayWithStore(events: DayEvent[], maxAgeMs: number | undefined) {
  let now = 0;
  let calls = 0;
  const store = createMemoryUserDataStore({
    maxAgeMs: maxAgeMs ?? 1,
    userMaxBytes: 1 << 20,
    budgetBytes: 1 << 30,
    clock: () => now,
  });
  const kept = createKeptReads({ store, clock: () => now });
  const read = async (userId: string, entry: UserDataEntry) => {
    if (maxAgeMs === undefined) return void (calls += 1); // today: every read is a platform call
    await kept.read(userId, entry, async () => {
      calls += 1;
      return { entry };
    });
  };
  let webhooks = 0;
  for (const event of events) {
    now = event.at;
    const userId = `user_${event.user}`;
    if (event.kind === 'webhook') {
      webhooks += 1;
      const code = event.type === 'ACCOUNT' ? 'UPDATE' : 'DEFAULT_UPDATE';
      await applyWebhookChange(store, userId, event.type, code, { item_id: `acc_${event.account}` });
      continue;
    }
    await read(userId, { kind: 'me' });
    await read(userId, { kind: 'accounts' });
    await read(userId, { kind: 'transactions', cursor: null });
    if (event.account !== undefined)
      await read(userId, { kind: 'transactions', accountId: `acc_${event.account}`, cursor: null });
  }
  return { calls, webhooks };
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
  sandbox.onRequest((request) => {
    if (request.service === 'core' && request.method === 'GET' && request.path.startsWith('/v1/')) coreCalls += 1;
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
    startGatewayProcess({ ...base, USER_DATA_STORE: 'off' }, entry),
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
    const history = world.transactions.filter((row) => accountIds.includes(row._account));
    const out: string[] = [`machine load (1, 5, 15 min): ${load}`, ''];

    // 1. A page of 100 enriched transactions, CORE_LATENCY_MS per core call.
    sandbox.setCoreFault({ delayMs: CORE_LATENCY_MS });
    await graphql(today, PAGE);
    await graphql(store, PAGE); // the enrichment cache warm for both: the difference is the store
    const changed = async () => {
      const hook = signedWebhook(sandbox, {
        webhook_type: 'TRANSACTION',
        webhook_code: 'DEFAULT_UPDATE',
        state: signedOn.state,
        item_id: accountIds[0],
        new_transactions: 0,
        new_transaction_ids: [],
        nonce: randomBytes(4).toString('hex'),
      });
      const answer = await fetch(`${on.url}/webhooks`, { method: 'POST', headers: hook.headers, body: hook.body });
      if (answer.status !== 200) throw new Error(`webhook answered ${answer.status}`);
    };
    const offPage = await pages(today, RUNS);
    const coldPage = await pages(store, RUNS, changed);
    const warmPage = await pages(store, RUNS);
    sandbox.setCoreFault({});
    const row = (name: string, r: { p50: number; p99: number; calls: number }) =>
      `| ${name} | ${r.p50.toFixed(1)} ms | ${r.p99.toFixed(1)} ms | ${r.calls.toFixed(1)} |`;
    out.push(
      `1. A page of 100 enriched transactions, ${CORE_LATENCY_MS} ms per core call, ${RUNS} pages each`,
      '',
      '| | p50 | p99 | core calls per page |',
      '|---|---|---|---|',
      row('store off (today)', offPage),
      row('store on, cold (after a webhook)', coldPage),
      row('store on, warm', warmPage),
      '',
      `warm p50 / cold p50: 1/${(coldPage.p50 / warmPage.p50).toFixed(0)}; warm p50 / off p50: 1/${(offPage.p50 / warmPage.p50).toFixed(0)}`,
      '',
    );

    // 2. A simulated day.
    const day = simulatedDay(1_000, 4);
    const todayDay = await dayWithStore(day, undefined);
    const hourDay = await dayWithStore(day, 3_600_000);
    const fullDay = await dayWithStore(day, 86_400_000);
    out.push(
      `2. A simulated day: 1,000 users x 10 opens, ${todayDay.webhooks.toLocaleString('en')} webhooks`,
      '',
      '| | platform calls | against today |',
      '|---|---|---|',
      `| store off (today) | ${todayDay.calls.toLocaleString('en')} | 1x |`,
      `| store on, USER_DATA_MAX_AGE_SECONDS=3600 | ${hourDay.calls.toLocaleString('en')} | ${(todayDay.calls / hourDay.calls).toFixed(1)}x fewer |`,
      `| store on, USER_DATA_MAX_AGE_SECONDS=86400 | ${fullDay.calls.toLocaleString('en')} | ${(todayDay.calls / fullDay.calls).toFixed(1)}x fewer |`,
      '',
    );

    // 3. Redis memory for one user: every page of the 90-day history, all accounts and each one.
    const appUser = sandbox.identity.users.byEmail('aroha@demo.example')!.sub;
    const key = `${prefix}{u:${userTag(appUser)}}:user-data`;
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
    const entries = (await redis.hkeys(key)).filter((field) => field.startsWith('e:')).length;
    const first = new Date(history.at(-1)!.date).toISOString().slice(0, 10);
    out.push(
      `3. Redis memory for one user: ${history.length} transactions since ${first} on ${accountIds.length} accounts, every page read (${entries} entries: me, the list, the all-accounts pages and each account's)`,
      '',
      `| MEMORY USAGE of the user's hash | ${(bytes / 1024).toFixed(1)} KiB | per 300 transactions: ${((bytes / history.length) * 0.3).toFixed(1)} KiB |`,
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
