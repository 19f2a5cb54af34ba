import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { Redis } from 'ioredis';
import { afterAll, beforeAll } from 'vitest';
import { parseRedisUrls, type RedisConnectionSettings, type RedisMode } from '../../src/config/redis-settings.js';
import { freeClusterPort, freePort } from './instances.js';
import { startRedisServer, type RedisProcess } from './redis-server.js';
import { SHARED_REDIS } from './redis.js';

const run = promisify(execFile);

/**
 * Redis servers of a test's own (Cluster nodes, a Sentinel group), on free ports, in a temp dir,
 * keeping nothing on disk: started in `beforeAll`, stopped with `stop()` in `afterAll`. The shared
 * Redis at 6379 is never touched.
 */
export interface OwnRedis {
  /** REDIS_* settings for a gateway process. */
  env: Record<string, string>;
  connection: RedisConnectionSettings;
  stop(): Promise<void>;
}

/** A server of this file's, on a free port, with no data on disk. */
async function startServer(args: string[], ready: RegExp, config?: string): Promise<RedisProcess> {
  const port = args.includes('--cluster-enabled') ? await freeClusterPort() : await freePort();
  return startRedisServer(port, [...args, '--appendonly', 'no'], { ready, config });
}

async function stopAll(servers: RedisProcess[], dir: string): Promise<void> {
  for (const server of servers) {
    if (server.process.exitCode === null && server.process.signalCode === null) {
      server.process.kill('SIGKILL');
      await server.exited;
    }
  }
  rmSync(dir, { recursive: true, force: true });
}

async function until(check: () => Promise<boolean>, what: string, timeoutMs = 15_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check().catch(() => false))) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

function settings(urls: string[], mode: RedisMode, master?: string): RedisConnectionSettings {
  const parsed = parseRedisUrls(urls.join(','), mode, master, undefined);
  if (typeof parsed === 'string') throw new Error(parsed);
  return parsed;
}

/**
 * Whether a message published on each node reaches a subscriber on every node. `cluster_state:ok`
 * does not wait for every node's cluster-bus link, and a PUBLISH travels only the links that are
 * up: the event log's append script publishes from the node that owns the user's stream, so while
 * that node's link to the subscriber's node is still missing, every announcement is lost. That is
 * the suspected cause of a test that once waited out its 20 s on a fresh cluster under the full
 * suite's load (not reproduced alone: there this check passes at its first try).
 */
async function publishReachesEveryNode(servers: RedisProcess[]): Promise<boolean> {
  const channel = `ofg-bus-probe-${process.pid}-${Date.now()}`;
  const client = (server: RedisProcess) =>
    new Redis(server.port, '127.0.0.1', { lazyConnect: true, maxRetriesPerRequest: 0 });
  const subscribers = servers.map(client);
  const publishers = servers.map(client);
  try {
    const heard = subscribers.map(() => new Set<string>());
    await Promise.all(
      subscribers.map(async (subscriber, index) => {
        subscriber.on('message', (_channel: string, message: string) => heard[index]!.add(message));
        await subscriber.connect();
        await subscriber.subscribe(channel);
      }),
    );
    await Promise.all(publishers.map(async (publisher, index) => publisher.publish(channel, String(index))));
    // A message crosses the bus in well under this on loopback.
    await new Promise((resolve) => setTimeout(resolve, 200));
    return heard.every((messages) => messages.size === servers.length);
  } finally {
    for (const connection of [...subscribers, ...publishers]) connection.disconnect();
  }
}

/** A three-primary Redis Cluster (no replicas), every slot assigned. */
export async function startRedisCluster(): Promise<OwnRedis> {
  const dir = mkdtempSync(join(tmpdir(), 'ofg-cluster-'));
  const servers: RedisProcess[] = [];
  try {
    for (let n = 0; n < 3; n += 1) {
      servers.push(
        await startServer(
          [
            '--cluster-enabled',
            'yes',
            '--cluster-config-file',
            join(dir, `nodes-${n}.conf`),
            '--cluster-node-timeout',
            '2000',
            '--dir',
            dir,
          ],
          /Ready to accept connections/,
        ),
      );
    }
    const addresses = servers.map((server) => `127.0.0.1:${server.port}`);
    await run('redis-cli', ['--cluster', 'create', ...addresses, '--cluster-replicas', '0', '--cluster-yes']);
    for (const server of servers) {
      await until(async () => {
        const probe = new Redis(server.port, '127.0.0.1', { lazyConnect: true, maxRetriesPerRequest: 0 });
        try {
          await probe.connect();
          return String(await probe.call('CLUSTER', 'INFO')).includes('cluster_state:ok');
        } finally {
          probe.disconnect();
        }
      }, 'cluster_state:ok');
    }
    await until(() => publishReachesEveryNode(servers), 'a PUBLISH on each node to reach every node');
    const urls = addresses.map((address) => `redis://${address}`);
    return {
      // No replicas here: nothing to wait for before a webhook's 200.
      env: { REDIS_MODE: 'cluster', REDIS_URL: urls.join(','), REDIS_WAIT_REPLICAS: '0' },
      connection: settings(urls, 'cluster'),
      stop: () => stopAll(servers, dir),
    };
  } catch (error) {
    await stopAll(servers, dir);
    throw error;
  }
}

export interface SentinelGroup extends OwnRedis {
  /** Kills the current primary and resolves once the sentinel has promoted the replica. */
  failOver(): Promise<void>;
}

/** A primary, one replica and one sentinel watching them (quorum 1, down after 1 s). */
export async function startRedisSentinel(): Promise<SentinelGroup> {
  const dir = mkdtempSync(join(tmpdir(), 'ofg-sentinel-'));
  const servers: RedisProcess[] = [];
  const master = 'ofgtest';
  try {
    const primary = await startServer(['--dir', dir], /Ready to accept connections/);
    servers.push(primary);
    const replica = await startServer(
      ['--dir', dir, '--replicaof', '127.0.0.1', String(primary.port)],
      /MASTER <-> REPLICA sync: Finished with success/,
    );
    servers.push(replica);
    const config = join(dir, 'sentinel.conf');
    writeFileSync(
      config,
      [
        `sentinel monitor ${master} 127.0.0.1 ${primary.port} 1`,
        `sentinel down-after-milliseconds ${master} 1000`,
        `sentinel failover-timeout ${master} 5000`,
        '',
      ].join('\n'),
    );
    const sentinel = await startServer(['--sentinel'], /\+monitor master/, config);
    servers.push(sentinel);
    const askSentinel = async () => {
      const probe = new Redis(sentinel.port, '127.0.0.1', { lazyConnect: true, maxRetriesPerRequest: 0 });
      try {
        await probe.connect();
        return (await probe.call('SENTINEL', 'GET-MASTER-ADDR-BY-NAME', master)) as [string, string];
      } finally {
        probe.disconnect();
      }
    };
    // The sentinel must know the replica before it can promote it.
    await until(async () => {
      const probe = new Redis(sentinel.port, '127.0.0.1', { lazyConnect: true, maxRetriesPerRequest: 0 });
      try {
        await probe.connect();
        return ((await probe.call('SENTINEL', 'REPLICAS', master)) as unknown[]).length === 1;
      } finally {
        probe.disconnect();
      }
    }, 'the sentinel to discover the replica');
    const urls = [`redis://127.0.0.1:${sentinel.port}`];
    return {
      env: { REDIS_MODE: 'sentinel', REDIS_URL: urls[0]!, REDIS_SENTINEL_MASTER: master },
      connection: settings(urls, 'sentinel', master),
      async failOver() {
        const [, before] = await askSentinel();
        const current = servers.find((server) => String(server.port) === before)!;
        current.process.kill('SIGKILL');
        await current.exited;
        await until(async () => (await askSentinel())[1] !== before, 'the sentinel to promote the replica', 20_000);
      },
      stop: () => stopAll(servers, dir),
    };
  } catch (error) {
    await stopAll(servers, dir);
    throw error;
  }
}

/** A Cluster and a Sentinel group for one test file: started before its tests, stopped after. */
export function ownTopologies(): { cluster?: OwnRedis; sentinel?: SentinelGroup } {
  const started: { cluster?: OwnRedis; sentinel?: SentinelGroup } = {};
  beforeAll(async () => {
    [started.cluster, started.sentinel] = await Promise.all([startRedisCluster(), startRedisSentinel()]);
  }, 60_000);
  afterAll(async () => {
    await Promise.all([started.cluster?.stop(), started.sentinel?.stop()]);
  });
  return started;
}

/**
 * The four places a store contract runs: in memory, and on Redis standalone, Cluster and behind
 * Sentinel (the stores' code does not change with the topology). Call it at a file's top level: it
 * starts the file's own Cluster and Sentinel group (ownTopologies).
 */
export function storeKinds<T>(
  memory: () => T | Promise<T>,
  redis: (connection: RedisConnectionSettings) => Promise<T>,
) {
  const topologies = ownTopologies();
  return [
    ['memory', async () => memory()],
    ['redis', () => redis(SHARED_REDIS)],
    ['redis cluster', () => redis(topologies.cluster!.connection)],
    ['redis sentinel', () => redis(topologies.sentinel!.connection)],
  ] as const;
}
