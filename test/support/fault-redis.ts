import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { Redis } from 'ioredis';
import { parseRedisUrls, type RedisConnectionSettings } from '../../src/config/redis-settings.js';
import { freeClusterPort, freePort } from './instances.js';
import { startRedisServer, type RedisProcess } from './redis-server.js';

const run = promisify(execFile);

/**
 * Redis servers a fault test owns and hurts: a standalone server with append-only persistence
 * (frozen with SIGSTOP, restarted on its port) and a Cluster whose primaries have replicas (one
 * primary killed so its replica takes over). Never the shared Redis.
 */
export async function kill(server: RedisProcess, signal: NodeJS.Signals = 'SIGKILL'): Promise<void> {
  if (server.process.exitCode !== null || server.process.signalCode !== null) return;
  // A frozen server cannot act on SIGTERM; SIGKILL needs no SIGCONT, which would let it run a moment.
  if (signal !== 'SIGKILL') server.process.kill('SIGCONT');
  server.process.kill(signal);
  await server.exited;
}

export interface FaultyRedis {
  port: number;
  url: string;
  /** SIGSTOP: the server keeps its sockets but answers nothing (a stall, not an outage). */
  freeze(): void;
  thaw(): void;
  /** Stops the server cleanly (SIGTERM: the append-only file is flushed) and starts it again on its port. */
  restart(): Promise<void>;
  stop(): Promise<void>;
}

/** A standalone server with `appendonly yes`, in a temp dir of its own. */
export async function startFaultyRedis(): Promise<FaultyRedis> {
  const dir = mkdtempSync(join(tmpdir(), 'ofg-faults-'));
  const port = await freePort();
  const start = () => startRedisServer(port, ['--appendonly', 'yes', '--dir', dir]);
  let server = await start();
  return {
    port,
    url: `redis://127.0.0.1:${port}`,
    freeze: () => void server.process.kill('SIGSTOP'),
    thaw: () => void server.process.kill('SIGCONT'),
    async restart() {
      await kill(server, 'SIGTERM');
      server = await start();
    },
    async stop() {
      await kill(server);
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

export interface ReplicatedCluster {
  env: Record<string, string>;
  connection: RedisConnectionSettings;
  /** Kills one primary (SIGKILL) and resolves once its replica is a primary and the cluster is ok. */
  failOverOnePrimary(): Promise<void>;
  /** SIGSTOP of the node on `port`, resolved once it is stopped: it keeps its sockets and answers nothing. */
  freeze(port: number): Promise<void>;
  /** SIGKILLs the node on `port` (frozen or not) and resolves once the others call it failed and the cluster is ok. */
  killNode(port: number): Promise<void>;
  stop(): Promise<void>;
}

export async function clusterInfo(port: number, command: string[]): Promise<string> {
  const probe = new Redis(port, '127.0.0.1', { lazyConnect: true, maxRetriesPerRequest: 0 });
  try {
    await probe.connect();
    return String(await probe.call(command[0]!, ...command.slice(1)));
  } finally {
    probe.disconnect();
  }
}

export async function until(check: () => Promise<boolean>, what: string, timeoutMs = 20_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check().catch(() => false))) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/** Three primaries, each with one replica (six servers, node timeout 1 s). */
export async function startReplicatedCluster(): Promise<ReplicatedCluster> {
  const dir = mkdtempSync(join(tmpdir(), 'ofg-faults-cluster-'));
  const servers: RedisProcess[] = [];
  const stop = async () => {
    for (const server of servers) await kill(server);
    rmSync(dir, { recursive: true, force: true });
  };
  try {
    for (let n = 0; n < 6; n += 1) {
      const port = await freeClusterPort();
      const args = [
        '--appendonly',
        'no',
        '--cluster-enabled',
        'yes',
        '--cluster-node-timeout',
        '1000',
        '--cluster-replica-validity-factor',
        '0',
        // A replica's first sync otherwise waits 5 s for more replicas to share one transfer.
        '--repl-diskless-sync-delay',
        '0',
      ];
      args.push('--cluster-config-file', join(dir, `nodes-${port}.conf`), '--dir', dir);
      servers.push(await startRedisServer(port, args));
    }
    const addresses = servers.map((server) => `127.0.0.1:${server.port}`);
    await run('redis-cli', ['--cluster', 'create', ...addresses, '--cluster-replicas', '1', '--cluster-yes']);
    const ok = async () =>
      (
        await Promise.all(
          servers
            .filter((server) => server.process.exitCode === null && server.process.signalCode === null)
            .map(async (server) => (await clusterInfo(server.port, ['CLUSTER', 'INFO'])).includes('cluster_state:ok')),
        )
      ).every(Boolean);
    // Six servers forming a cluster on two loaded cores can take a while: setup, not the fault.
    await until(ok, 'cluster_state:ok on every node', 45_000);
    // Every replica must hold its primary's data before a fault may strike. CLUSTER NODES calling a
    // replica "connected" speaks of the cluster bus, not of replication: a replica can be listed so
    // while its first sync has not even started, and promoting it then (the validity factor of 0
    // allows it) loses every key of its shard, as acknowledged webhooks dropped for a lost routing
    // handle once showed.
    await until(
      async () =>
        (await Promise.all(servers.map(async (server) => clusterInfo(server.port, ['INFO', 'replication']))))
          .filter((text) => text.includes('role:slave'))
          .filter((text) => text.includes('master_link_status:up')).length === 3,
      'three replicas in sync',
      45_000,
    );
    const killNode = async (port: number) => {
      const victim = servers.find((server) => server.port === port)!;
      await kill(victim);
      const survivor = servers.find((server) => server !== victim && server.process.exitCode === null)!;
      await until(
        async () =>
          (await clusterInfo(survivor.port, ['CLUSTER', 'INFO'])).includes('cluster_state:ok') &&
          (await clusterInfo(survivor.port, ['CLUSTER', 'NODES']))
            .split('\n')
            .some((line) => line.includes(`:${port}@`) && line.includes('fail')),
        'the cluster to be ok without the killed node',
      );
    };
    const urls = addresses.map((address) => `redis://${address}`).join(',');
    const connection = parseRedisUrls(urls, 'cluster', undefined, undefined);
    if (typeof connection === 'string') throw new Error(connection);
    return {
      env: { REDIS_MODE: 'cluster', REDIS_URL: urls },
      connection,
      async failOverOnePrimary() {
        const nodes = (await clusterInfo(servers[0]!.port, ['CLUSTER', 'NODES'])).split('\n');
        const primary = nodes.find((line) => line.includes('master') && !line.includes('fail'))!;
        await killNode(Number(/:(\d+)@/.exec(primary)![1]));
      },
      async freeze(port) {
        const server = servers.find((candidate) => candidate.port === port)!;
        server.process.kill('SIGSTOP');
        // The signal is acted on when the process next runs: stopped means state T in /proc.
        await until(async () => / T /.test(readFileSync(`/proc/${server.process.pid}/stat`, 'utf8')), 'SIGSTOP');
      },
      killNode,
      stop,
    };
  } catch (error) {
    await stop();
    throw error;
  }
}
