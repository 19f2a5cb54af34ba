import { Cluster } from 'ioredis';
import type { Clock } from '@open-finance-gateway/common/clock';
import type { Logger } from '@open-finance-gateway/common/logger';
import { storeCall, type RedisClient } from '../redis/redis-client.js';
import { sessionEndedChannel } from '../redis/redis-keys.js';
import type { RedisListener } from '../redis/redis-listener.js';
import type { KeptDataTrust } from './user-data-store.js';

/** How long one census holds: a rolling deploy's instances start over seconds, each before it acknowledges anything. */
const CENSUS_MS = 1_000;

/**
 * Which instances sharing the Redis keep the user-data store in this version's shape. Every
 * instance of every version listens on the session-ended channel; this version's also listen on
 * the shape's own channel, which is how it announces that it keeps the ledger current. Fewer
 * listeners on the second (summed over a Cluster's nodes: a listener is on one of them) means an
 * instance of an earlier version is live, which may acknowledge a webhook without changing what
 * this version keeps (the version before the store answers a repeated body `duplicate` and
 * changes nothing at all). While that is so, kept data is not served, and once it ends, nothing
 * kept from before is served without being reconciled first: the last instant the census found a
 * mixed deployment is kept in Redis for every instance to read.
 */
export function createShapeCensus(options: {
  redis: RedisClient;
  listener: RedisListener;
  keyPrefix: string;
  clock: Clock;
  logger: Logger;
}) {
  const { redis, listener, keyPrefix, clock } = options;
  const everyInstance = sessionEndedChannel(keyPrefix);
  const thisShape = `${keyPrefix}user-data:ledger`;
  const mixedKey = `${keyPrefix}user-data:mixed-until`;
  let last: { at: number; trust: Promise<KeptDataTrust> } | undefined;

  async function count(): Promise<KeptDataTrust> {
    const nodes = redis instanceof Cluster ? redis.nodes('all') : [redis];
    const counts = await storeCall(() =>
      Promise.all(
        nodes.map((node) => node.pubsub('NUMSUB', everyInstance, thisShape) as Promise<Array<string | number>>),
      ),
    );
    let instances = 0;
    let keeping = 0;
    for (const reply of counts) {
      instances += Number(reply[1]);
      keeping += Number(reply[3]);
    }
    const mixed = instances > keeping;
    const now = clock();
    if (mixed) await storeCall(() => redis.set(mixedKey, String(now)));
    const since = Number((await storeCall(() => redis.get(mixedKey))) ?? 0);
    return { mixed, since: mixed ? now : since };
  }

  return {
    /** Subscribes to the shape's channel, now and after every reconnection (the listener forgets). */
    async announce(): Promise<void> {
      listener.on('ready', () => {
        listener
          .subscribe(thisShape)
          .catch((error: unknown) =>
            options.logger.warn(
              { err: { message: (error as Error).message } },
              'could not announce the user-data shape again; other instances read through meanwhile',
            ),
          );
      });
      await listener.subscribe(thisShape);
    },
    trust(): Promise<KeptDataTrust> {
      const now = clock();
      if (!last || now - last.at >= CENSUS_MS) {
        const trust = count();
        last = { at: now, trust };
        trust.catch(() => (last = undefined)); // a failed census is asked again at once
      }
      return last.trust;
    },
  };
}
