import { describe, expect, it } from 'vitest';
import { createLogger } from '@open-finance-gateway/common/logger';
import { createStores, type GatewayStores } from '../../src/app/stores.js';
import { loadConfig } from '../../src/config/config.js';
import { clusterInfo, until } from '../support/fault-redis.js';
import { track } from '../support/leftovers.js';
import { tokenKeysSetting } from '../support/redis.js';
import { startUncoveredCluster } from '../support/uncovered-cluster.js';

const logger = createLogger({ level: 'silent' });

/** How many ready checks (CLUSTER INFO) the server has answered. */
async function readyChecks(port: number): Promise<number> {
  const stats = await clusterInfo(port, ['INFO', 'commandstats']);
  return Number(/cmdstat_cluster\|info:calls=(\d+)/.exec(stats)?.[1] ?? 0);
}

describe('starting the stores on a Redis Cluster that is not ok yet', () => {
  it('starts once the Cluster turns ok: a failed ready check does not leave the start hanging', async () => {
    const cluster = await startUncoveredCluster();
    track(() => cluster.stop());
    const config = loadConfig({ ...cluster.env, TOKEN_ENCRYPTION_KEYS: tokenKeysSetting() });
    let started: GatewayStores | undefined;
    const starting = createStores({
      config,
      clock: Date.now,
      logger,
      onSessionExpired: () => undefined,
      onBankConnectionExpired: () => undefined,
    }).then((stores) => {
      started = stores;
      track(() => stores.close());
    });
    // The Cluster answered cluster_state:fail to a ready check, and its client tried again.
    await until(async () => (await readyChecks(cluster.port)) >= 2, 'a second ready check');
    expect(started).toBeUndefined();

    await cluster.cover();
    // The client retries every 2 s at most: started well within this once the Cluster is ok.
    await until(async () => started !== undefined, 'the stores to start after the Cluster turned ok', 6_000);
    await starting;
  });
});
