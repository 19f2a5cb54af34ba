import { randomBytes } from 'node:crypto';
import { once } from 'node:events';
import { createServer } from 'node:http';
import { createLogger } from '@open-finance-gateway/common/logger';
import { createSandbox, MERCHANTS, type Sandbox } from '@open-finance-gateway/sandbox';
import { interleaved } from './support/interleave.js';
import {
  freePort,
  gatewayEnvFor,
  percentile,
  signIn,
  startEnrichmentFloor,
  startGatewayProcess,
  startReferenceBff,
  type Measured,
} from './support/processes.js';

/**
 * `npm run bench:enrichment`: enrichment through the gateway against reference BFFs and the direct
 * call, in one run. The sandbox runs here; the gateway (`node dist/main.js`, cache off) and two
 * reference BFFs (Apollo + type-graphql: `naive`, one search per transaction; `dataloader`, a
 * per-request DataLoader) in processes of their own, each reporting its CPU time. Workloads:
 * 1. a page of 100 enriched transactions at 1 and 10 clients, with a 20 ms upstream round trip
 *    injected on every sandbox call (the delay fault); at 1 client also interleaved with the
 *    direct read-then-search;
 * 2. 50 concurrent clients enriching 2 lookups each, the cross-request window on (BENCH_WINDOW_MS,
 *    default the gateway's own 2 ms) and off;
 * 3. `enrich(N)` for N = 1, 10, 100, 1,000 against the same searches sent directly and through a
 *    floor (a bare proxy, bench/support/enrichment-floor.ts), interleaved, no delay; then N = 1 and
 *    100 against the direct call with the 20 ms round trip;
 * 4. `enrich(10)` with tracing on (spans exported to a collector here) against off, interleaved.
 * Every response is checked for errors.
 */
const ROUND_TRIP_MS = 20;
const WINDOW_MS = Number(process.env.BENCH_WINDOW_MS ?? 2);
const PAGE = '{ transactions(first: 100) { nodes { id description amount enrichment { merchant { name } } } } }';
const ENRICH = 'query ($q: [EnrichmentQueryInput!]!) { enrich(queries: $q) { id merchant { name } } }';

interface Target {
  name: string;
  process: Measured;
  /** Headers for a GraphQL POST (the gateway wants its session cookie). */
  headers: Record<string, string>;
}

async function graphql(target: Target, query: string, variables: Record<string, unknown> = {}): Promise<number> {
  const started = performance.now();
  const response = await fetch(`${target.process.url}/graphql`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...target.headers },
    body: JSON.stringify({ query, variables }),
  });
  const body = (await response.json()) as { errors?: unknown; data?: unknown };
  if (response.status !== 200 || body.errors || !body.data)
    throw new Error(`${target.name}: ${response.status} ${JSON.stringify(body.errors ?? body).slice(0, 300)}`);
  return performance.now() - started;
}

/** Searches the sandbox has received (counted as they arrive: the request log is bounded). */
let searchCount = 0;
const searches = (_sandbox: Sandbox) => searchCount;

/** `clients` loops of `perClient` requests each; latency, throughput, CPU and searches per request. */
async function load(
  sandbox: Sandbox,
  target: Target,
  clients: number,
  perClient: number,
  request: (client: number, n: number) => Promise<number>,
) {
  const [cpuBefore, searchesBefore] = [(await target.process.measure()).cpuMicros, searches(sandbox)];
  const latencies: number[] = [];
  const started = performance.now();
  await Promise.all(
    Array.from({ length: clients }, async (_, client) => {
      for (let n = 0; n < perClient; n += 1) latencies.push(await request(client, n));
    }),
  );
  const seconds = (performance.now() - started) / 1000;
  const requests = clients * perClient;
  const cpuMs = ((await target.process.measure()).cpuMicros - cpuBefore) / 1000 / requests;
  latencies.sort((a, b) => a - b);
  return {
    p50: percentile(latencies, 50),
    p99: percentile(latencies, 99),
    perSecond: requests / seconds,
    cpuMs,
    searches: (searches(sandbox) - searchesBefore) / requests,
  };
}

const ms = (value: number) => `${value.toFixed(1)} ms`;

async function main(): Promise<void> {
  const sandbox = createSandbox({
    logger: createLogger({ level: 'silent' }),
    headerPrefix: 'X-Service',
    webhookTimeScale: 3_600,
  });
  await sandbox.start();
  sandbox.onRequest((request) => {
    if (request.method === 'POST' && request.path === '/v1/search') searchCount += 1;
  });
  const publicUrl = `http://localhost:${await freePort()}`;
  sandbox.registerRedirectUri(`${publicUrl}/auth/callback`);
  const base = {
    ...gatewayEnvFor(sandbox, publicUrl, randomBytes(32).toString('base64url')),
    ENRICHMENT_CACHE_TTL_SECONDS: '0',
  };
  // A collector that accepts and drops spans, for the tracing-on gateway.
  const collector = createServer((req, res) =>
    req.resume().on('end', () => res.writeHead(200, { 'content-type': 'application/json' }).end('{}')),
  ).listen(0, '127.0.0.1');
  await once(collector, 'listening');
  const collectorUrl = `http://127.0.0.1:${(collector.address() as { port: number }).port}`;
  const [windowOn, windowOff, traced, floor] = await Promise.all([
    startGatewayProcess({ ...base, ENRICHMENT_BATCH_WINDOW_MS: String(WINDOW_MS) }),
    startGatewayProcess({ ...base, ENRICHMENT_BATCH_WINDOW_MS: '0' }),
    startGatewayProcess({ ...base, ENRICHMENT_BATCH_WINDOW_MS: '0', OTEL_EXPORTER_OTLP_ENDPOINT: collectorUrl }),
    startEnrichmentFloor(sandbox),
  ]);
  const started: Measured[] = [windowOn, windowOff, traced, floor];
  sandbox.setWebhookUrl(`${windowOn.url}/webhooks`);
  try {
    const cookieOn = (await signIn(publicUrl, windowOn, sandbox)).cookie;
    const cookieOff = (await signIn(publicUrl, windowOff, sandbox)).cookie;
    const cookieTraced = (await signIn(publicUrl, traced, sandbox)).cookie;
    const token = sandbox.issuedTokens()[0]!;
    const [naive, dataloader] = await Promise.all([
      startReferenceBff('naive', sandbox, token),
      startReferenceBff('dataloader', sandbox, token),
    ]);
    started.push(naive, dataloader);
    const gateway: Target = { name: 'gateway', process: windowOff, headers: { cookie: cookieOff } };
    const gatewayWindow: Target = {
      name: `gateway (window ${WINDOW_MS} ms)`,
      process: windowOn,
      headers: { cookie: cookieOn },
    };
    const references: Target[] = [
      { name: 'naive BFF', process: naive, headers: {} },
      { name: 'DataLoader BFF', process: dataloader, headers: {} },
    ];
    const out: string[] = [];

    // 1. A page of 100 enriched transactions, 20 ms per upstream call.
    sandbox.setCoreFault({ delayMs: ROUND_TRIP_MS });
    sandbox.setEnrichmentFault({ delayMs: ROUND_TRIP_MS });
    for (const target of [gateway, ...references]) await graphql(target, PAGE); // warm up
    const page = (await (
      await fetch(`${sandbox.coreUrl}/v1/transactions`, {
        headers: { authorization: `Bearer ${token}`, 'x-service-id': sandbox.credentials.appToken },
      })
    ).json()) as { items: Array<{ description: string; amount: number }> };
    // What the page costs without anything in between: the page read, then one search of its rows.
    const directPage = async () => {
      const begun = performance.now();
      await (
        await fetch(`${sandbox.coreUrl}/v1/transactions`, {
          headers: { authorization: `Bearer ${token}`, 'x-service-id': sandbox.credentials.appToken },
        })
      ).arrayBuffer();
      await (
        await fetch(`${sandbox.enrichmentUrl}/v1/search`, {
          method: 'POST',
          headers: { authorization: `Bearer ${sandbox.credentials.enrichmentKey}`, 'content-type': 'application/json' },
          body: JSON.stringify(
            page.items.map((row, index) => ({ id: `q${index}`, description: row.description, amount: row.amount })),
          ),
        })
      ).arrayBuffer();
      return performance.now() - begun;
    };
    const direct = await load(sandbox, { name: 'direct', process: windowOff, headers: {} }, 1, 10, directPage);
    out.push(
      `\n1. A page of 100 enriched transactions, ${ROUND_TRIP_MS} ms injected per upstream call (direct: the page read, then one search of its 100 lookups: p50 ${ms(direct.p50)})\n`,
    );
    out.push(
      '| clients | BFF | searches/request | requests/s | p50 | p99 | CPU/request |',
      '|---|---|---|---|---|---|---|',
    );
    const pageFigures = new Map<string, Awaited<ReturnType<typeof load>>>();
    for (const clients of [1, 10]) {
      for (const target of [gateway, ...references]) {
        const figures = await load(sandbox, target, clients, clients === 1 ? 20 : 6, () => graphql(target, PAGE));
        pageFigures.set(`${clients}:${target.name}`, figures);
        out.push(
          `| ${clients} | ${target.name} | ${figures.searches.toFixed(1)} | ${figures.perSecond.toFixed(1)} | ${ms(figures.p50)} | ${ms(figures.p99)} | ${ms(figures.cpuMs)} |`,
        );
      }
    }
    const at = (clients: number, name: string) => pageFigures.get(`${clients}:${name}`)!;
    // The two goals at 1 client, measured again with each round's requests taking turns (the
    // gateway, the DataLoader BFF and the direct read-then-search), so that the machine's drift
    // during the run lands on all alike.
    const [pageGateway, pageDataLoader, pageDirect] = await interleaved(
      [
        { name: 'gateway', process: windowOff, request: () => graphql(gateway, PAGE) },
        { name: 'DataLoader BFF', process: dataloader, request: () => graphql(references[1]!, PAGE) },
        { name: 'direct', request: directPage },
      ],
      20,
      60,
    );
    out.push(
      '',
      `throughput at 10 clients: gateway ${(at(10, 'gateway').perSecond / at(10, 'naive BFF').perSecond).toFixed(1)}× the naive BFF (goal ≥ 3×)`,
      '',
      `1 client, 60 interleaved rounds: p50 gateway ${ms(pageGateway!.p50)}, direct read-then-search ${ms(pageDirect!.p50)}, DataLoader BFF ${ms(pageDataLoader!.p50)}: ` +
        // Three decimals: the goal is judged on the edge of two (1.102 printed as 1.10 would read as met).
        `gateway ${(pageGateway!.p50 / pageDirect!.p50).toFixed(3)}× the direct (goal ≤ 1.10×; DataLoader BFF ${(pageDataLoader!.p50 / pageDirect!.p50).toFixed(3)}×); ` +
        `CPU per page gateway ${ms(pageGateway!.cpuMs)}, DataLoader BFF ${ms(pageDataLoader!.cpuMs)}: ${(pageGateway!.cpuMs / pageDataLoader!.cpuMs).toFixed(2)}× (goal ≤ 1.00×)`,
    );

    // 2. 50 concurrent clients enriching 2 lookups each, window on and off.
    out.push(
      `\n2. 50 concurrent clients, 2 distinct lookups per request, 10 requests each, ${ROUND_TRIP_MS} ms per upstream call\n`,
    );
    out.push('| window | searches/request | p50 | p99 |', '|---|---|---|---|');
    const twoLookups = (target: Target) => (client: number, n: number) =>
      graphql(target, ENRICH, {
        q: [
          { id: 'a', description: `${MERCHANTS[client % MERCHANTS.length]!.sample} ${client}-${n}` },
          { id: 'b', description: `${MERCHANTS[(client + 7) % MERCHANTS.length]!.sample} ${client}-${n}` },
        ],
      });
    const off = await load(sandbox, gateway, 50, 10, twoLookups(gateway));
    const on = await load(sandbox, gatewayWindow, 50, 10, twoLookups(gatewayWindow));
    out.push(
      `| off | ${off.searches.toFixed(2)} | ${ms(off.p50)} | ${ms(off.p99)} |`,
      `| ${WINDOW_MS} ms | ${on.searches.toFixed(2)} | ${ms(on.p50)} | ${ms(on.p99)} |`,
    );
    out.push(
      '',
      `upstream calls: ${(off.searches / on.searches).toFixed(1)}× fewer with the window (goal ≥ 3×); p50 with the window ${ms(on.p50 - off.p50)} more (goal ≤ window + 2 ms)`,
    );

    // 3. enrich(N) against the direct call and the floor, no injected delay. Each request of one
    // round goes to every target in turn (interleaved), after a warm-up, so that machine noise
    // lands on all of them alike; each process serves only its own requests, so its CPU is its own.
    sandbox.setCoreFault({});
    sandbox.setEnrichmentFault({});
    const floorTarget: Target = { name: 'floor', process: floor, headers: {} };
    out.push(
      '\n3. enrich(N) against the same searches sent directly (batches of 100 in parallel) and a floor (a bare node:http + undici proxy doing the same calls), no injected delay, interleaved\n',
    );
    out.push(
      '| N | gateway p50 | floor p50 | direct p50 | gateway ÷ direct | floor ÷ direct | gateway CPU/lookup | floor CPU/lookup |',
      '|---|---|---|---|---|---|---|---|',
    );
    for (const size of [1, 10, 100, 1_000]) {
      const queries = (n: number) =>
        Array.from({ length: size }, (_, j) => ({
          id: `${j}`,
          description: `${MERCHANTS[j % MERCHANTS.length]!.sample} ${size}-${n}-${j}`,
        }));
      const straight = async (n: number) => {
        const begun = performance.now();
        const all = queries(n).map((query, index) => ({ id: `q${index}`, description: query.description }));
        await Promise.all(
          Array.from({ length: Math.ceil(size / 100) }, (_, chunk) =>
            fetch(`${sandbox.enrichmentUrl}/v1/search`, {
              method: 'POST',
              headers: {
                authorization: `Bearer ${sandbox.credentials.enrichmentKey}`,
                'content-type': 'application/json',
              },
              body: JSON.stringify(all.slice(chunk * 100, chunk * 100 + 100)),
            }).then((response) => response.arrayBuffer()),
          ),
        );
        return performance.now() - begun;
      };
      const through = (target: Target) => (n: number) => graphql(target, ENRICH, { q: queries(n) });
      const runs = size === 1_000 ? 40 : size === 100 ? 150 : 300;
      const figures = await interleaved(
        [
          { name: 'gateway', process: windowOff, request: through(gateway) },
          { name: 'floor', process: floor, request: through(floorTarget) },
          { name: 'direct', request: straight },
        ],
        // Long enough for the JIT to settle: CPU per request at 1 lookup still fell by a quarter
        // between 300 and 7,000 requests when this was 30.
        size <= 10 ? 1_000 : size === 100 ? 300 : 60,
        runs,
      );
      const [viaGateway, viaFloor, direct] = figures;
      const perLookup = (figure: (typeof figures)[number]) => `${((figure.cpuMs * 1000) / size).toFixed(1)} µs`;
      out.push(
        `| ${size} | ${ms(viaGateway!.p50)} | ${ms(viaFloor!.p50)} | ${ms(direct!.p50)} | ${(viaGateway!.p50 / direct!.p50).toFixed(2)}× | ${(viaFloor!.p50 / direct!.p50).toFixed(2)}× | ${perLookup(viaGateway!)} | ${perLookup(viaFloor!)} |`,
      );
    }
    out.push(
      '\ngoals: gateway ÷ direct ≤ 1.1× at 100 and ≤ 2× at 1; ≤ 10 µs of gateway CPU per lookup at 1,000 (the floor shows what any process in between costs on this machine)',
    );

    // The same ratio with the upstream round trip the benchmark gives every workload: what
    // a client sees against a platform with a real service time. The goals are judged above,
    // without it, where the gateway's own cost is not hidden by the wait.
    sandbox.setEnrichmentFault({ delayMs: ROUND_TRIP_MS });
    const withRoundTrip: string[] = [];
    for (const size of [1, 100]) {
      const queries = (n: number) =>
        Array.from({ length: size }, (_, j) => ({
          id: `${j}`,
          description: `${MERCHANTS[j % MERCHANTS.length]!.sample} rt${size}-${n}-${j}`,
        }));
      const [viaGateway, direct] = await interleaved(
        [
          { name: 'gateway', process: windowOff, request: (n) => graphql(gateway, ENRICH, { q: queries(n) }) },
          {
            name: 'direct',
            request: async (n) => {
              const begun = performance.now();
              await (
                await fetch(`${sandbox.enrichmentUrl}/v1/search`, {
                  method: 'POST',
                  headers: {
                    authorization: `Bearer ${sandbox.credentials.enrichmentKey}`,
                    'content-type': 'application/json',
                  },
                  body: JSON.stringify(queries(n).map((query, index) => ({ ...query, id: `q${index}` }))),
                })
              ).arrayBuffer();
              return performance.now() - begun;
            },
          },
        ],
        10,
        60,
      );
      withRoundTrip.push(
        `N = ${size}: gateway ${ms(viaGateway!.p50)}, direct ${ms(direct!.p50)}, ${(viaGateway!.p50 / direct!.p50).toFixed(2)}×`,
      );
    }
    sandbox.setEnrichmentFault({});
    out.push(`with ${ROUND_TRIP_MS} ms injected per search (p50, interleaved): ${withRoundTrip.join('; ')}`);

    // 4. What tracing costs: the same gateway with spans exported to a collector, against off,
    // interleaved after the same warm-up (the traced gateway serves nothing before this section,
    // and measured cold it showed 60-70% more CPU where warm it shows about 12%).
    const tracedTarget: Target = { name: 'gateway (tracing on)', process: traced, headers: { cookie: cookieTraced } };
    out.push(
      '\n4. Tracing on (OTLP/HTTP to a collector in this process) against off: enrich(10), 1 client, no injected delay, interleaved\n',
    );
    out.push('| tracing | p50 | p99 | CPU/request |', '|---|---|---|---|');
    const ten = (n: number) =>
      Array.from({ length: 10 }, (_, j) => ({
        id: `${j}`,
        description: `${MERCHANTS[j % MERCHANTS.length]!.sample} t${n}-${j}`,
      }));
    const [untraced, withTracing] = await interleaved(
      [gateway, tracedTarget].map((target, index) => ({
        name: target.name,
        process: target.process,
        request: (n: number) => graphql(target, ENRICH, { q: ten(n + index * 1_000_000) }),
      })),
      1_000,
      300,
    );
    for (const [label, result] of [
      ['off', untraced!],
      ['on', withTracing!],
    ] as const)
      out.push(`| ${label} | ${ms(result.p50)} | ${ms(result.p99)} | ${ms(result.cpuMs)} |`);
    out.push(
      '',
      `tracing adds ${ms(withTracing!.p50 - untraced!.p50)} at p50 and ${((withTracing!.cpuMs / untraced!.cpuMs - 1) * 100).toFixed(0)}% CPU per request`,
    );
    console.log(out.join('\n'));
  } finally {
    await Promise.all(started.map((process) => process.stop()));
    collector.close();
    await sandbox.stop();
  }
}

void main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
