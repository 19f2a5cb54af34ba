import { startFaultDeployment } from '../test/support/fault-deployment.js';
import { startFaultyRedis, startReplicatedCluster } from '../test/support/fault-redis.js';
import { runFaultStream, type FaultReport } from '../test/support/fault-run.js';
import { track } from '../test/support/leftovers.js';
import { startRedisSentinel } from '../test/support/redis-topologies.js';
import { startTcpProxy } from '../test/support/tcp-proxy.js';

/**
 * `npm run bench:faults`: the fault suite's harness at scale. Per fault, three gateway processes
 * on a Redis of the run's own, three connected users with live subscribers on two instances, and
 * BENCH_FAULT_EVENTS distinct signed webhooks (default 1,700: 10,200 over the six faults) sent
 * round robin to all three instances by the platform stand-in, which retries every non-2xx; the
 * fault strikes at random moments of the stream. Loopback only; each row is bounded by the
 * stand-in's attempts and the settle time.
 */
export const EVENTS_PER_FAULT = Number(process.env.BENCH_FAULT_EVENTS ?? 1_700);
const COMMAND_TIMEOUT_MS = Number(process.env.BENCH_FAULT_COMMAND_TIMEOUT_MS ?? 300);
const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

export interface FaultRow {
  fault: string;
  report: FaultReport;
}

/** `count` distinct random moments in the middle of the stream, each fault after the last one ended. */
function atRandomMoments(count: number, inject: () => Promise<void>) {
  const moments = new Set<number>();
  while (moments.size < count) moments.add(Math.floor(EVENTS_PER_FAULT * (0.1 + 0.7 * Math.random())));
  let chain = Promise.resolve();
  return [...moments].map((after) => ({ after, inject: () => (chain = chain.then(inject)) }));
}

async function run(
  redis: Record<string, string>,
  faults: (instances: Awaited<ReturnType<typeof startFaultDeployment>>['instances']) => Array<{
    after: number;
    inject: () => Promise<void>;
  }>,
): Promise<FaultReport> {
  const deployment = await startFaultDeployment({
    redis,
    instances: 3,
    users: 3,
    commandTimeoutMs: COMMAND_TIMEOUT_MS,
  });
  const [a, b, c] = deployment.instances;
  return runFaultStream({
    deployment,
    receivers: [a!, b!, c!],
    subscribers: [b!, c!],
    events: EVENTS_PER_FAULT,
    concurrency: 4,
    faults: faults(deployment.instances),
    settleMs: 30_000,
  });
}

export const FAULT_BENCH_CASES: Array<{ fault: string; run(): Promise<FaultReport> }> = [
  {
    fault: `Redis frozen ${2 * COMMAND_TIMEOUT_MS} ms (SIGSTOP) ×2`,
    async run() {
      const redis = await startFaultyRedis();
      track(() => redis.stop());
      return run({ REDIS_URL: redis.url }, () =>
        atRandomMoments(2, async () => {
          redis.freeze();
          await pause(2 * COMMAND_TIMEOUT_MS);
          redis.thaw();
        }),
      );
    },
  },
  {
    fault: 'Redis restarted (append-only) ×2',
    async run() {
      const redis = await startFaultyRedis();
      track(() => redis.stop());
      return run({ REDIS_URL: redis.url }, () => atRandomMoments(2, () => redis.restart()));
    },
  },
  {
    fault: 'Sentinel failover',
    async run() {
      const sentinel = await startRedisSentinel();
      track(() => sentinel.stop());
      return run(sentinel.env, () => atRandomMoments(1, () => sentinel.failOver()));
    },
  },
  {
    fault: 'Cluster primary killed, replica promoted',
    async run() {
      const cluster = await startReplicatedCluster();
      track(() => cluster.stop());
      return run(cluster.env, () => atRandomMoments(1, () => cluster.failOverOnePrimary()));
    },
  },
  {
    fault: 'gateway instance killed (SIGKILL)',
    async run() {
      const redis = await startFaultyRedis();
      track(() => redis.stop());
      return run({ REDIS_URL: redis.url }, (instances) =>
        atRandomMoments(1, async () => {
          instances[0]!.process.kill('SIGKILL');
          await instances[0]!.exited;
        }),
      );
    },
  },
  {
    fault: 'proxy: latency over the timeout, connections cut ×2',
    async run() {
      const redis = await startFaultyRedis();
      track(() => redis.stop());
      const proxy = await startTcpProxy({ host: '127.0.0.1', port: redis.port });
      track(() => proxy.close());
      return run({ REDIS_URL: `redis://127.0.0.1:${proxy.port}` }, () =>
        atRandomMoments(2, async () => {
          proxy.setLatency(COMMAND_TIMEOUT_MS / 2 + 20);
          await pause(2 * COMMAND_TIMEOUT_MS);
          proxy.cutAll();
          proxy.setLatency(0);
        }),
      );
    },
  },
];

/** One table: what the platform sent and was told, against what subscribers got. */
export function faultTable(rows: FaultRow[]): string {
  const header = ['fault', 'sent', 'acknowledged', 'delivered', 'duplicated', 'lost', 'recovery s (max)'];
  const lines = rows.map(({ fault, report }) => [
    fault,
    String(report.sent),
    String(report.acknowledged),
    String(report.delivered),
    String(report.duplicated.length),
    String(report.lost.length),
    report.recoverySeconds.length ? String(Math.max(...report.recoverySeconds)) : '-',
  ]);
  const total = (pick: (report: FaultReport) => number) => String(rows.reduce((sum, row) => sum + pick(row.report), 0));
  lines.push([
    'total',
    total((r) => r.sent),
    total((r) => r.acknowledged),
    total((r) => r.delivered),
    total((r) => r.duplicated.length),
    total((r) => r.lost.length),
    '',
  ]);
  const widths = header.map((title, n) => Math.max(title.length, ...lines.map((line) => line[n]!.length)));
  const row = (cells: string[]) => `| ${cells.map((cell, n) => cell.padEnd(widths[n]!)).join(' | ')} |`;
  return [row(header), `|${widths.map((width) => '-'.repeat(width + 2)).join('|')}|`, ...lines.map(row)].join('\n');
}
