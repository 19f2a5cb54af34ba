import { randomBytes } from 'node:crypto';
import { once } from 'node:events';
import WebSocket from 'ws';
import { createLogger } from '@open-finance-gateway/common/logger';
import { createSandbox, sandboxId, type Sandbox } from '@open-finance-gateway/sandbox';
import {
  freePort,
  gatewayEnvFor,
  percentile,
  signedWebhook,
  signIn,
  startFloorProcess,
  startGatewayProcess,
  type Measured,
} from './support/processes.js';

/**
 * `npm run bench:realtime`: the cost of one event to many subscribers, gateway against a floor.
 * The sandbox runs in this process; the gateway (`node dist/main.js`) and the floor (node:http + ws
 * that verifies the signature and sends one prepared frame to every socket) in processes of their
 * own, each with a probe that reports CPU time and, after a full GC, heap and RSS. Prints, in one
 * run: webhook → subscriber p50/p99/max at 1, 100 and 1,000 sockets of one user and at 1,000 users
 * with one socket each; upstream re-reads per event; CPU per event; how long a request to another
 * the event-loop delay p99 while events fan out to 1,000 sockets; heap and RSS per idle socket at 1k
 * and 10k; verified ingest per second. Ratios are against the floor in the same run.
 */
const USERS = Number(process.env.BENCH_USERS ?? 1_000);
const BIG = Number(process.env.BENCH_IDLE_SOCKETS ?? 10_000);
const INGEST = Number(process.env.BENCH_INGEST ?? 3_000);
const CONCURRENCY = 16;
const QUERY = 'subscription { accountEvents { code accountId updatedFields account { id name status } } }';
const accountOf = (key: string) => sandboxId('acc', `${key}:everyday`);

interface Subscriber {
  socket: WebSocket;
  /** Resolves with when (performance.now()) the event with this sequence number reached this socket. */
  arrival(sequence: number): Promise<number>;
}

/** Opens a socket; for the gateway, graphql-ws's handshake and one subscription. */
async function openSubscriber(
  target: Measured,
  kind: 'gateway' | 'floor',
  origin: string,
  cookie = '',
): Promise<Subscriber> {
  const socket = new WebSocket(`ws://127.0.0.1:${target.port}/graphql`, 'graphql-transport-ws', {
    headers: { origin, cookie },
  });
  await once(socket, 'open');
  if (kind === 'gateway') {
    socket.send(JSON.stringify({ type: 'connection_init' }));
    await once(socket, 'message');
    socket.send(JSON.stringify({ id: '1', type: 'subscribe', payload: { query: QUERY } }));
  }
  const arrived = new Map<number, number>();
  const waiting = new Map<number, (at: number) => void>();
  socket.on('message', (data) => {
    const at = performance.now();
    const fields =
      (JSON.parse(String(data)) as { payload?: { data?: { accountEvents?: { updatedFields?: string[] } } } }).payload
        ?.data?.accountEvents?.updatedFields ?? [];
    const tag = fields.find((field) => field.startsWith('seq:'));
    if (tag === undefined) return;
    const sequence = Number(tag.slice(4));
    arrived.set(sequence, at);
    waiting.get(sequence)?.(at);
  });
  return {
    socket,
    arrival: (sequence) =>
      arrived.has(sequence)
        ? Promise.resolve(arrived.get(sequence)!)
        : new Promise<number>((resolve) => waiting.set(sequence, resolve)),
  };
}

async function openMany(count: number, open: () => Promise<Subscriber>): Promise<Subscriber[]> {
  const out: Subscriber[] = [];
  while (out.length < count)
    out.push(...(await Promise.all(Array.from({ length: Math.min(100, count - out.length) }, open))));
  return out;
}

/**
 * Posts a signed webhook. An ACCOUNT UPDATE is a real change: the account's balance moves first, as
 * the platform's would (a gateway that judges repeated bodies by what subscribers would receive
 * publishes only a change).
 */
async function post(target: Measured, sandbox: Sandbox, payload: Record<string, unknown>): Promise<void> {
  if (payload.webhook_type === 'ACCOUNT') {
    const account = sandbox.world().accounts.find((row) => row._id === payload.item_id);
    if (account?.balance) account.balance.current = Math.round((account.balance.current + 0.01) * 100) / 100;
  }
  const { body, headers } = signedWebhook(sandbox, payload);
  const response = await fetch(`${target.url}/webhooks`, { method: 'POST', headers, body });
  await response.arrayBuffer();
  if (response.status !== 200) throw new Error(`webhook answered ${response.status}`);
}

/** Each event carries its sequence number in `updated_fields`, which the subscription echoes. */
let sequence = 0;
const accountUpdate = (state: string, account: string) => ({
  webhook_type: 'ACCOUNT',
  webhook_code: 'UPDATE',
  state,
  item_id: account,
  updated_fields: ['balance', `seq:${(sequence += 1)}`],
});
const sequenceOf = (payload: Record<string, unknown>) =>
  Number(String((payload.updated_fields as string[])[1]).slice(4));

/** Subscribing is not acknowledged: probe until one event reaches every socket. */
async function untilLive(
  target: Measured,
  sandbox: Sandbox,
  payload: () => Record<string, unknown>,
  receivers: Subscriber[],
): Promise<void> {
  for (;;) {
    const probe = payload();
    const all = Promise.all(receivers.map((subscriber) => subscriber.arrival(sequenceOf(probe))));
    await post(target, sandbox, probe);
    if (
      await Promise.race([
        all.then(() => true),
        new Promise<false>((resolve) => setTimeout(() => resolve(false), 1_000)),
      ])
    )
      return;
  }
}

/** Sends events one after another; each is timed from POST to its arrival on each socket. */
async function timeEvents(
  target: Measured,
  sandbox: Sandbox,
  events: Array<{ payload: Record<string, unknown>; receivers: Subscriber[] }>,
) {
  const latencies: number[] = [];
  const cpuBefore = (await target.measure()).cpuMicros;
  for (const { payload, receivers } of events) {
    const arrivals = receivers.map((subscriber) => subscriber.arrival(sequenceOf(payload)));
    const started = performance.now();
    await post(target, sandbox, payload);
    for (const at of await Promise.all(arrivals)) latencies.push(at - started);
  }
  const cpuPerEventMs = ((await target.measure()).cpuMicros - cpuBefore) / 1000 / events.length;
  latencies.sort((a, b) => a - b);
  return { p50: percentile(latencies, 50), p99: percentile(latencies, 99), max: latencies.at(-1)!, cpuPerEventMs };
}

/**
 * The target's event-loop delay p99 while events fan out (measured inside the process): how long
 * any other request could wait behind one event.
 */
async function loopDelayDuringFanOut(
  target: Measured,
  sandbox: Sandbox,
  payloads: Array<Record<string, unknown>>,
  receivers: Subscriber[],
): Promise<number> {
  await target.measure(); // resets the histogram
  for (const payload of payloads) {
    const arrivals = receivers.map((subscriber) => subscriber.arrival(sequenceOf(payload)));
    await post(target, sandbox, payload);
    await Promise.all(arrivals);
  }
  return (await target.measure()).loopDelayP99Ms;
}

async function ingest(
  target: Measured,
  sandbox: Sandbox,
  payload: (n: number) => Record<string, unknown>,
): Promise<number> {
  let next = 0;
  const started = performance.now();
  await Promise.all(
    Array.from({ length: CONCURRENCY }, async () => {
      while (next < INGEST) await post(target, sandbox, payload(next++));
    }),
  );
  return INGEST / ((performance.now() - started) / 1000);
}

/** One figure of one build: the gateway's, the floor's, their ratio, and the number compared across builds. */
interface Row {
  name: string;
  gateway: string;
  floor: string;
  ratio: string;
  figure: number;
}

/** Every figure of one build (`entry`: its main.js; undefined: this checkout's dist/main.js), with its own sandbox and floor. */
async function measureBuild(entry: string | undefined): Promise<Row[]> {
  const sandbox = createSandbox({
    logger: createLogger({ level: 'silent' }),
    headerPrefix: 'X-Service',
    webhookTimeScale: 3_600,
    recordRequests: true,
    loadTestUsers: USERS,
  });
  await sandbox.start();
  const publicPort = await freePort();
  const publicUrl = `http://localhost:${publicPort}`;
  sandbox.registerRedirectUri(`${publicUrl}/auth/callback`);
  const gateway = await startGatewayProcess(
    {
      ...gatewayEnvFor(sandbox, publicUrl, randomBytes(32).toString('base64url')),
      WS_MAX_SOCKETS_PER_SESSION: String(BIG),
      WS_MAX_SOCKETS_PER_USER: String(BIG),
      HTTP_MAX_TCP_CONNECTIONS: String(BIG + 2_000),
    },
    entry,
  );
  sandbox.setWebhookUrl(`${gateway.url}/webhooks`);
  const floor = await startFloorProcess(sandbox.signingKeys.lookup(sandbox.signingKeys.currentId)!.publicPem);
  const reads = () =>
    sandbox.requests({ method: 'GET' }).filter((request) => request.path.startsWith('/v1/accounts/')).length;
  const rows: Row[] = [];
  const ms = (value: number) => `${value.toFixed(2)} ms`;
  /** `figure`: what is compared between builds (a latency row's p99, a CPU or heap figure). */
  const row = (name: string, gatewayFigure: string, floorFigure: string, ratio: string, figure = Number.NaN) =>
    rows.push({ name, gateway: gatewayFigure, floor: floorFigure, ratio, figure });

  try {
    // One user, 1 / 100 / 1,000 sockets.
    const main = await signIn(publicUrl, gateway, sandbox, sandboxId('user', 'load_0'), 'load_0@load.example');
    const account = accountOf('load_0');
    const gatewaySockets: Subscriber[] = [];
    const floorSockets: Subscriber[] = [];
    for (const [count, events] of [
      [1, 300],
      [100, 100],
      [1_000, 40],
    ] as const) {
      gatewaySockets.push(
        ...(await openMany(count - gatewaySockets.length, () =>
          openSubscriber(gateway, 'gateway', publicUrl, main.cookie),
        )),
      );
      floorSockets.push(
        ...(await openMany(count - floorSockets.length, () => openSubscriber(floor, 'floor', publicUrl))),
      );
      await untilLive(gateway, sandbox, () => accountUpdate(main.state, account), gatewaySockets);
      const readsBefore = reads();
      const plan = () => ({ payload: accountUpdate(main.state, account), receivers: gatewaySockets });
      const onGateway = await timeEvents(gateway, sandbox, Array.from({ length: events }, plan));
      const rereads = (reads() - readsBefore) / events;
      const onFloor = await timeEvents(
        floor,
        sandbox,
        Array.from({ length: events }, () => ({
          payload: accountUpdate(main.state, account),
          receivers: floorSockets,
        })),
      );
      row(
        `${count} socket(s) of one user: p50 / p99 / max`,
        `${ms(onGateway.p50)} / ${ms(onGateway.p99)} / ${ms(onGateway.max)}`,
        `${ms(onFloor.p50)} / ${ms(onFloor.p99)} / ${ms(onFloor.max)}`,
        `p99 ${(onGateway.p99 / onFloor.p99).toFixed(1)}×`,
        onGateway.p99,
      );
      row(
        `${count} socket(s): CPU per event`,
        ms(onGateway.cpuPerEventMs),
        ms(onFloor.cpuPerEventMs),
        `${(onGateway.cpuPerEventMs / onFloor.cpuPerEventMs).toFixed(1)}×`,
        onGateway.cpuPerEventMs,
      );
      row(`${count} socket(s): upstream re-reads per event`, rereads.toFixed(2), '0', '');
      if (count === 1_000) {
        const payloads = () => Array.from({ length: 20 }, () => accountUpdate(main.state, account));
        const [gatewayStall, floorStall] = [
          await loopDelayDuringFanOut(gateway, sandbox, payloads(), gatewaySockets),
          await loopDelayDuringFanOut(floor, sandbox, payloads(), floorSockets),
        ];
        row(
          'event-loop delay p99 during 1,000-socket fan-outs',
          ms(gatewayStall),
          ms(floorStall),
          'goal ≤ 20 ms',
          gatewayStall,
        );
      }
    }
    for (const subscriber of [...gatewaySockets, ...floorSockets]) subscriber.socket.terminate();

    // 1,000 users with one socket each; events to one user at a time.
    const users: Array<{ state: string; account: string; subscriber: Subscriber }> = [];
    for (let start = 0; start < USERS; start += 20) {
      const batch = Array.from({ length: Math.min(20, USERS - start) }, (_, offset) => `load_${start + offset}`);
      users.push(
        ...(await Promise.all(
          batch.map(async (key) => {
            const signedIn = await signIn(publicUrl, gateway, sandbox, sandboxId('user', key), `${key}@load.example`);
            return {
              state: signedIn.state,
              account: accountOf(key),
              subscriber: await openSubscriber(gateway, 'gateway', publicUrl, signedIn.cookie),
            };
          }),
        )),
      );
    }
    for (const user of users)
      await untilLive(gateway, sandbox, () => accountUpdate(user.state, user.account), [user.subscriber]);
    const oneFloorSocket = await openSubscriber(floor, 'floor', publicUrl);
    const pick = (n: number) => users[(n * 7919) % users.length]!;
    const manyUsers = await timeEvents(
      gateway,
      sandbox,
      Array.from({ length: 300 }, (_, n) => ({
        payload: accountUpdate(pick(n).state, pick(n).account),
        receivers: [pick(n).subscriber],
      })),
    );
    const floorOne = await timeEvents(
      floor,
      sandbox,
      Array.from({ length: 300 }, (_, n) => ({
        payload: accountUpdate(pick(n).state, pick(n).account),
        receivers: [oneFloorSocket],
      })),
    );
    row(
      `${users.length} users, one socket each: p50 / p99 / max`,
      `${ms(manyUsers.p50)} / ${ms(manyUsers.p99)} / ${ms(manyUsers.max)}`,
      `${ms(floorOne.p50)} / ${ms(floorOne.p99)} / ${ms(floorOne.max)} (1 socket)`,
      `p99 ${(manyUsers.p99 / floorOne.p99).toFixed(1)}×`,
      manyUsers.p99,
    );

    // Verified ingest, one subscriber listening.
    const gatewayIngest = await ingest(gateway, sandbox, (n) => accountUpdate(pick(n).state, pick(n).account));
    const floorIngest = await ingest(floor, sandbox, (n) => accountUpdate(pick(n).state, pick(n).account));
    row(
      'verified webhook ingest',
      `${gatewayIngest.toFixed(0)}/s`,
      `${floorIngest.toFixed(0)}/s`,
      `${((gatewayIngest / floorIngest) * 100).toFixed(0)}% (goal ≥ 60%)`,
      gatewayIngest,
    );
    for (const user of users) user.subscriber.socket.terminate();
    oneFloorSocket.socket.terminate();

    // Heap and RSS per idle socket (one subscription each), at 1k and 10k.
    const idle = await signIn(publicUrl, gateway, sandbox, sandboxId('user', 'load_1'), 'load_1@load.example');
    await new Promise((resolve) => setTimeout(resolve, 500)); // closed sockets above are released
    const [baseline, floorBaseline] = [await gateway.measure(), await floor.measure()];
    const idleSockets: Subscriber[] = [];
    const idleFloorSockets: Subscriber[] = [];
    const kb = (bytes: number) => `${(bytes / 1024).toFixed(1)} KB`;
    let atFirst: Awaited<ReturnType<Measured['measure']>> | undefined;
    for (const count of [1_000, BIG]) {
      idleSockets.push(
        ...(await openMany(count - idleSockets.length, () =>
          openSubscriber(gateway, 'gateway', publicUrl, idle.cookie),
        )),
      );
      // The floor's figure at 1k is enough to compare; 10k more sockets here would pass this process's file limit.
      if (count === 1_000)
        idleFloorSockets.push(
          ...(await openMany(count - idleFloorSockets.length, () => openSubscriber(floor, 'floor', publicUrl))),
        );
      await untilLive(gateway, sandbox, () => accountUpdate(idle.state, accountOf('load_1')), idleSockets);
      const [now, floorNow] = [await gateway.measure(), await floor.measure()];
      row(
        `idle sockets: heap / RSS per socket at ${count}`,
        `${kb((now.heapUsed - baseline.heapUsed) / count)} / ${kb((now.rss - baseline.rss) / count)}`,
        count === 1_000
          ? `${kb((floorNow.heapUsed - floorBaseline.heapUsed) / count)} / ${kb((floorNow.rss - floorBaseline.rss) / count)}`
          : '',
        'heap goal ≤ 10 KB',
        (now.heapUsed - baseline.heapUsed) / count / 1024,
      );
      // The same heap measured two more ways. Sampled without a forced collection, it holds
      // whatever garbage the last young collection left. Between 1k and 10k sockets, the costs
      // paid once (the first subscription's document, the user's event reader, code and maps sized
      // for the first thousand) cancel out: what one more socket costs.
      row(
        `idle sockets: heap per socket at ${count}, no forced collection`,
        kb((now.heapUsedBeforeGc - baseline.heapUsedBeforeGc) / count),
        '',
        '',
      );
      if (atFirst)
        row(
          `idle sockets: heap per socket from 1000 to ${count} (fixed costs cancelled)`,
          kb((now.heapUsed - atFirst.heapUsed) / (count - 1_000)),
          '',
          '',
          (now.heapUsed - atFirst.heapUsed) / (count - 1_000) / 1024,
        );
      atFirst ??= now;
    }
    for (const subscriber of [...idleSockets, ...idleFloorSockets]) subscriber.socket.terminate();
    return rows;
  } finally {
    await Promise.all([gateway.stop(), floor.stop()]);
    await sandbox.stop();
  }
}

/** Other builds run beside this one: `name=path/to/main.js`, comma-separated (BENCH_BASE, as bench:pipeline takes it). */
const BUILDS = [
  { name: 'this checkout', entry: undefined as string | undefined },
  ...(process.env.BENCH_BASE ?? '')
    .split(',')
    .filter(Boolean)
    .map((given) => {
      const [name, path] = given.includes('=') ? given.split('=') : ['base', given];
      return { name: name!, entry: path };
    }),
];
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 1);

/**
 * Each build measured in turn, BENCH_ROUNDS times, the order of the builds new each round: a table
 * per build and round, then, with more than one build, each build's figures side by side with
 * their ratio to the first base (the median over the rounds).
 */
async function main(): Promise<void> {
  const results = new Map<string, Row[][]>(BUILDS.map((build) => [build.name, []]));
  for (let round = 1; round <= ROUNDS; round += 1) {
    const order = [...BUILDS].sort(() => Math.random() - 0.5);
    for (const build of order) {
      const rows = await measureBuild(build.entry);
      results.get(build.name)!.push(rows);
      console.log(`\nbench:realtime — ${build.name}, round ${round}: the gateway against the floor, same run\n`);
      console.log('| measure | gateway | floor | ratio |');
      console.log('|---|---|---|---|');
      for (const line of rows) console.log(`| ${line.name} | ${line.gateway} | ${line.floor} | ${line.ratio} |`);
    }
  }
  if (BUILDS.length > 1) printSideBySide(results);
}

function printSideBySide(results: Map<string, Row[][]>): void {
  const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;
  const names = [...results.keys()];
  const figures = (build: string, row: string) =>
    results.get(build)!.map((rows) => rows.find((line) => line.name === row)?.figure ?? Number.NaN);
  const base = names[1]!;
  console.log(`\nbench:realtime — side by side, median of ${ROUNDS} round(s); ratio: ${names[0]} / ${base}\n`);
  console.log(`| measure | ${names.join(' | ')} | ratio |`);
  console.log(`|---|${names.map(() => '---|').join('')}---|`);
  for (const row of results.get(names[0]!)![0]!.filter((line) => !Number.isNaN(line.figure))) {
    const values = names.map((build) => median(figures(build, row.name)));
    console.log(
      `| ${row.name} | ${values.map((value) => value.toFixed(2)).join(' | ')} | ${(values[0]! / values[1]!).toFixed(2)}× |`,
    );
  }
}

void main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
