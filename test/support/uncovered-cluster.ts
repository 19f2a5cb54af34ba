import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { clusterInfo, kill, until } from './fault-redis.js';
import { freeClusterPort } from './instances.js';
import { startRedisServer } from './redis-server.js';

export interface UncoveredCluster {
  env: Record<string, string>;
  port: number;
  /** Assigns the missing slot: the Cluster turns ok. */
  cover(): Promise<void>;
  stop(): Promise<void>;
}

/**
 * A one-node Cluster with one slot unassigned, so CLUSTER INFO says `cluster_state:fail` (as while a
 * primary is down and its replica not yet promoted) until `cover()`.
 */
export async function startUncoveredCluster(): Promise<UncoveredCluster> {
  const dir = mkdtempSync(join(tmpdir(), 'ofg-uncovered-'));
  const port = await freeClusterPort();
  // Alone, a node knows no address of its own to name in CLUSTER SLOTS: it is told one.
  const args = [
    '--cluster-enabled',
    'yes',
    '--cluster-announce-ip',
    '127.0.0.1',
    '--cluster-config-file',
    join(dir, 'nodes.conf'),
    '--dir',
    dir,
  ];
  const server = await startRedisServer(port, ['--appendonly', 'no', ...args]);
  const stop = async () => {
    await kill(server);
    rmSync(dir, { recursive: true, force: true });
  };
  try {
    await clusterInfo(port, ['CLUSTER', 'ADDSLOTSRANGE', '0', '16382']);
    return {
      env: { REDIS_MODE: 'cluster', REDIS_URL: `redis://127.0.0.1:${port}`, REDIS_WAIT_REPLICAS: '0' },
      port,
      async cover() {
        await clusterInfo(port, ['CLUSTER', 'ADDSLOTS', '16383']);
        await until(
          async () => (await clusterInfo(port, ['CLUSTER', 'INFO'])).includes('cluster_state:ok'),
          'cluster_state:ok',
        );
      },
      stop,
    };
  } catch (error) {
    await stop();
    throw error;
  }
}
