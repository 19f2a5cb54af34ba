import { randomBytes } from 'node:crypto';
import { mkdirSync } from 'node:fs';
import { createLogger } from '@open-finance-gateway/common/logger';
import { createSandbox, MERCHANTS, sandboxId, type Sandbox } from '@open-finance-gateway/sandbox';
import { interleaved, shuffled } from './support/interleave.js';
import {
  freePort,
  gatewayEnvFor,
  signIn,
  startEnrichmentFloor,
  startGatewayProcess,
  startReferenceBff,
  type Measured,
} from './support/processes.js';

/**
 * `npm run bench:pipeline`: what a request costs in the gateway against what the same work costs
 * in a plain DataLoader BFF on the same Apollo Server and type-graphql
 * (bench/support/reference-bff.ts, which also plays a stock Apollo Server for `{ __typename }`) and
 * in a bare one-hop forwarder (bench/support/enrichment-floor.ts), all against one sandbox, side by
 * side in one run. BENCH_ROUNDS rounds (default 3), each taking the targets in a new random order;
 * every ratio is printed per round and as min / median / max. Workloads:
 * 1. a page of 100 enriched transactions, 10 clients, each a distinct user with a page of its own
 *    (20 ms injected on every sandbox call): requests/s and CPU per request;
 * 2. the same, every client asking for one user's page (the in-flight join);
 * 3. one client, the page, interleaved per request: p50;
 * 4. `enrich(1)`, interleaved per request with the DataLoader BFF and the forwarder, no injected
 *    delay: p50;
 * 5. `enrich(1000)`, interleaved the same way: CPU per lookup;
 * 6. `{ __typename }`, one client, interleaved with stock Apollo: p50, requests/s, CPU per request.
 * BENCH_BASE=<name>=<path to another build's main.js>[,…] adds those builds as gateways in every
 * workload (before/after in one run). BENCH_PROFILE_DIR=<dir> instead runs workload 1 alone for
 * BENCH_PROFILE_REQUESTS requests against gateways started with `--cpu-prof` into that directory;
 * with BENCH_PROFILE_WORKLOAD=enrich1000 (or enrich1), workload 5 (or 4) alone, the builds in turns.
 */
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const USERS = 10;
const ROUND_TRIP_MS = 20;
/** Other builds run beside this one: `name=path/to/main.js`, comma-separated. */
const BASES = (process.env.BENCH_BASE ?? '')
  .split(',')
  .filter(Boolean)
  .map((entry) => {
    const [name, path] = entry.includes('=') ? entry.split('=') : ['base', entry];
    return { name: `gateway @ ${name}`, entry: path! };
  });
const PROFILE_DIR = process.env.BENCH_PROFILE_DIR;
/** `enrich<N>`: the lookups of each request in an `enrich` workload profiled. */
const PROFILE_LOOKUPS = Number(/^enrich(\d+)$/.exec(process.env.BENCH_PROFILE_WORKLOAD ?? '')?.[1] ?? 0);
const PAGE = '{ transactions(first: 100) { nodes { id description amount enrichment { merchant { name } } } } }';
const ENRICH = 'query ($q: [EnrichmentQueryInput!]!) { enrich(queries: $q) { id merchant { name } } }';
const TYPENAME = '{ __typename }';

interface Target {
  name: string;
  process: Measured;
  /** Headers of user `n`'s requests (the gateway's session cookie, the BFF's bearer token). */
  headers: (user: number) => Record<string, string>;
}

async function graphql(
  target: Target,
  user: number,
  query: string,
  variables: Record<string, unknown> = {},
): Promise<number> {
  const started = performance.now();
  const response = await fetch(`${target.process.url}/graphql`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...target.headers(user) },
    body: JSON.stringify({ query, variables }),
  });
  const body = (await response.json()) as { errors?: unknown; data?: unknown };
  if (response.status !== 200 || body.errors || !body.data)
    throw new Error(`${target.name}: ${response.status} ${JSON.stringify(body.errors ?? body).slice(0, 300)}`);
  return performance.now() - started;
}

/** `clients` closed loops of `perClient` requests; client `c` is user `userOf(c)`. */
async function closedLoop(target: Target, clients: number, perClient: number, userOf: (client: number) => number) {
  const cpuBefore = (await target.process.measure()).cpuMicros;
  const started = performance.now();
  await Promise.all(
    Array.from({ length: clients }, async (_, client) => {
      for (let n = 0; n < perClient; n += 1) await graphql(target, userOf(client), PAGE);
    }),
  );
  const seconds = (performance.now() - started) / 1000;
  const requests = clients * perClient;
  return {
    perSecond: requests / seconds,
    cpuMs: ((await target.process.measure()).cpuMicros - cpuBefore) / 1000 / requests,
  };
}

/**
 * Gives each load-test user (`load_<n>`) a copy of a demo user's latest 100 transactions, with its
 * own descriptions (a suffix the sandbox's matcher ignores), so that ten users' pages share no lookup.
 */
function seedPages(sandbox: Sandbox): void {
  const world = sandbox.world();
  const source = world.transactions.filter((row) => row._user === sandboxId('user', 'aroha')).slice(0, 100);
  for (let user = 0; user < USERS; user += 1) {
    const account = world.accounts.find((candidate) => candidate._id === sandboxId('acc', `load_${user}:everyday`))!;
    source.forEach((row, index) =>
      world.transactions.push({
        ...row,
        _id: sandboxId('trans', `load_${user}:${index}`),
        hash: sandboxId('hash', `load_${user}:${index}`),
        _account: account._id,
        _connection: account.connection._id,
        _user: account.sandboxUserId,
        description: `${row.description} L${user}`,
      }),
    );
  }
}

/** `size` lookups no earlier request made (the cache is off, but the batcher joins identical ones). */
const lookups = (size: number, n: number) =>
  Array.from({ length: size }, (_, j) => ({
    id: `${j}`,
    description: `${MERCHANTS[j % MERCHANTS.length]!.sample} ${size}-${n}-${j}-${Math.random().toString(36).slice(2, 8)}`,
  }));

const ms = (value: number) => `${value.toFixed(2)} ms`;
const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;
const spread = (values: number[], unit: string) =>
  `${Math.min(...values).toFixed(2)} / ${median(values).toFixed(2)} / ${Math.max(...values).toFixed(2)}${unit}`;

async function main(): Promise<void> {
  const sandbox = createSandbox({
    logger: createLogger({ level: 'silent' }),
    headerPrefix: 'X-Service',
    webhookTimeScale: 3_600,
    loadTestUsers: USERS,
  });
  await sandbox.start();
  seedPages(sandbox);
  const publicUrl = `http://localhost:${await freePort()}`;
  sandbox.registerRedirectUri(`${publicUrl}/auth/callback`);
  const env = {
    ...gatewayEnvFor(sandbox, publicUrl, randomBytes(32).toString('base64url')),
    ENRICHMENT_CACHE_TTL_SECONDS: '0',
  };
  if (PROFILE_DIR) mkdirSync(PROFILE_DIR, { recursive: true });
  const nodeArgs = PROFILE_DIR ? ['--cpu-prof', `--cpu-prof-dir=${PROFILE_DIR}`] : [];
  const builds = [{ name: 'gateway', entry: 'dist/main.js' }, ...BASES];
  const started: Measured[] = [];
  try {
    const gatewayProcesses = await Promise.all(builds.map((build) => startGatewayProcess(env, build.entry, nodeArgs)));
    started.push(...gatewayProcesses);
    sandbox.setWebhookUrl(`${gatewayProcesses[0]!.url}/webhooks`);
    const tokens: string[] = [];
    const gateways: Target[] = [];
    for (const [index, process] of gatewayProcesses.entries()) {
      const cookies: string[] = [];
      for (let user = 0; user < USERS; user += 1) {
        const key = `load_${user}`;
        cookies.push((await signIn(publicUrl, process, sandbox, sandboxId('user', key), `${key}@load.example`)).cookie);
        if (index === 0) tokens.push(sandbox.issuedTokens().at(-1)!);
      }
      gateways.push({ name: builds[index]!.name, process, headers: (user) => ({ cookie: cookies[user]! }) });
    }
    const [dataloaderProcess, forwarderProcess] = await Promise.all([
      startReferenceBff('dataloader', sandbox, tokens[0]!),
      startEnrichmentFloor(sandbox),
    ]);
    started.push(dataloaderProcess, forwarderProcess);
    const bff: Target = {
      name: 'DataLoader BFF',
      process: dataloaderProcess,
      headers: (user) => ({ authorization: `Bearer ${tokens[user]!}` }),
    };
    const forwarder: Target = { name: 'forwarder', process: forwarderProcess, headers: () => ({}) };

    if (PROFILE_DIR && PROFILE_LOOKUPS > 0) {
      // The builds and the forwarder (not profiled) take turns, request by request, as in workloads 4 and 5.
      const requests = Number(process.env.BENCH_PROFILE_REQUESTS ?? 300);
      const targets = [...gateways, forwarder];
      const begun = performance.now();
      const figures = await interleaved(
        targets.map((target) => ({
          ...target,
          request: (n: number) => graphql(target, 0, ENRICH, { q: lookups(PROFILE_LOOKUPS, n) }),
        })),
        20,
        requests,
      );
      const seconds = (performance.now() - begun) / 1000;
      figures.forEach((figure, index) =>
        console.log(
          `${targets[index]!.name} (pid ${targets[index]!.process.child.pid}): ${requests} × enrich(${PROFILE_LOOKUPS}) in ${seconds.toFixed(1)} s (all builds), p50 ${ms(figure.p50)}, ${((figure.cpuMs * 1000) / PROFILE_LOOKUPS).toFixed(1)} µs CPU per lookup`,
        ),
      );
      return;
    }
    if (PROFILE_DIR) {
      sandbox.setCoreFault({ delayMs: ROUND_TRIP_MS });
      sandbox.setEnrichmentFault({ delayMs: ROUND_TRIP_MS });
      const perClient = Math.ceil(Number(process.env.BENCH_PROFILE_REQUESTS ?? 600) / USERS);
      for (const target of gateways) {
        await closedLoop(target, USERS, 5, (client) => client); // warm up
        const begun = performance.now();
        const figures = await closedLoop(target, USERS, perClient, (client) => client);
        console.log(
          `${target.name} (pid ${target.process.child.pid}): ${USERS * perClient} requests in ${((performance.now() - begun) / 1000).toFixed(1)} s, ${figures.perSecond.toFixed(1)} requests/s, ${ms(figures.cpuMs)} CPU per request`,
        );
      }
      return;
    }

    const ratios = new Map<string, number[]>();
    const note = (goal: string, value: number) => ratios.set(goal, [...(ratios.get(goal) ?? []), value]);
    const out: string[] = [];
    for (let round = 1; round <= ROUNDS; round += 1) {
      out.push(`\n### Round ${round} of ${ROUNDS}\n`, '| workload | target | figures |', '|---|---|---|');
      const row = (workload: string, target: string, figures: string) =>
        out.push(`| ${workload} | ${target} | ${figures} |`);

      sandbox.setCoreFault({ delayMs: ROUND_TRIP_MS });
      sandbox.setEnrichmentFault({ delayMs: ROUND_TRIP_MS });
      for (const [workload, userOf] of [
        ['page, 10 users', (client: number) => client],
        ['same page, 10 clients', () => 0],
      ] as const) {
        const figures = new Map<string, Awaited<ReturnType<typeof closedLoop>>>();
        for (const target of shuffled([...gateways, bff])) {
          if (round === 1) await closedLoop(target, USERS, 2, userOf); // warm up
          figures.set(target.name, await closedLoop(target, USERS, 24, userOf));
        }
        for (const [name, figure] of figures)
          row(workload, name, `${figure.perSecond.toFixed(1)} requests/s, ${ms(figure.cpuMs)} CPU/request`);
        for (const target of gateways) {
          const mine = figures.get(target.name)!;
          const theirs = figures.get(bff.name)!;
          note(`${workload}: ${target.name} rps ÷ DataLoader BFF's`, mine.perSecond / theirs.perSecond);
          if (workload === 'page, 10 users')
            note(`${workload}: ${target.name} CPU/request ÷ DataLoader BFF's`, mine.cpuMs / theirs.cpuMs);
        }
      }

      const onePage = await interleaved(
        [...gateways, bff].map((target) => ({ ...target, request: () => graphql(target, 0, PAGE) })),
        round === 1 ? 10 : 0,
        40,
      );
      onePage.forEach((figure, index) =>
        row(
          'page, 1 client, interleaved',
          [...gateways, bff][index]!.name,
          `p50 ${ms(figure.p50)}, CPU ${ms(figure.cpuMs)}`,
        ),
      );
      gateways.forEach((target, index) =>
        note(`page, 1 client: ${target.name} p50 ÷ DataLoader BFF's`, onePage[index]!.p50 / onePage.at(-1)!.p50),
      );

      sandbox.setCoreFault({});
      sandbox.setEnrichmentFault({});
      // The DataLoader BFF runs them too: what Apollo Server and graphql-js cost over the same hop.
      const oneHop = [...gateways, bff, forwarder];
      for (const size of [1, 1_000]) {
        const figures = await interleaved(
          oneHop.map((target) => ({
            ...target,
            request: (n: number) => graphql(target, 0, ENRICH, { q: lookups(size, n) }),
          })),
          round === 1 ? (size === 1 ? 500 : 20) : 0,
          size === 1 ? 300 : 20,
        );
        figures.forEach((figure, index) =>
          row(
            `enrich(${size}), interleaved`,
            oneHop[index]!.name,
            `p50 ${ms(figure.p50)}, CPU ${((figure.cpuMs * 1000) / size).toFixed(1)} µs per lookup`,
          ),
        );
        [...gateways, bff].forEach((target, index) => {
          if (size === 1)
            note(`enrich(1): ${target.name} p50 ÷ forwarder's`, figures[index]!.p50 / figures.at(-1)!.p50);
          else note(`enrich(1000): ${target.name} CPU per lookup, µs`, figures[index]!.cpuMs);
        });
      }

      const stock: Target = { ...bff, name: 'stock Apollo' };
      const typename = await interleaved(
        [...gateways, stock].map((target) => ({ ...target, request: () => graphql(target, 0, TYPENAME) })),
        round === 1 ? 500 : 0,
        500,
      );
      // Requests per second at one client: each target alone, in a random order, back to back.
      const perSecond = new Map<string, number>();
      for (const target of shuffled([...gateways, stock])) {
        const begun = performance.now();
        for (let n = 0; n < 500; n += 1) await graphql(target, 0, TYPENAME);
        perSecond.set(target.name, 500 / ((performance.now() - begun) / 1000));
      }
      typename.forEach((figure, index) => {
        const name = [...gateways, stock][index]!.name;
        row(
          '{ __typename }, 1 client',
          name,
          `p50 ${ms(figure.p50)}, ${perSecond.get(name)!.toFixed(0)} requests/s, CPU ${(figure.cpuMs * 1000).toFixed(0)} µs/request`,
        );
      });
      gateways.forEach((target, index) => {
        note(`{ __typename }: ${target.name} p50 ÷ stock Apollo's`, typename[index]!.p50 / typename.at(-1)!.p50);
        note(
          `{ __typename }: ${target.name} rps ÷ stock Apollo's`,
          perSecond.get(target.name)! / perSecond.get(stock.name)!,
        );
      });
    }
    out.push('\n### Over the rounds: min / median / max\n', '| measure | min / median / max |', '|---|---|');
    for (const [goal, values] of ratios) out.push(`| ${goal} | ${spread(values, goal.endsWith('µs') ? ' µs' : '×')} |`);
    console.log(out.join('\n'));
  } finally {
    await Promise.all(started.map((measured) => measured.stop()));
    await sandbox.stop();
  }
}

void main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
