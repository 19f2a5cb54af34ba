import { StoreUnavailableError } from '../lib/store-unavailable.js';
import { execAll, storeCall, type RedisClient } from './redis-client.js';

/**
 * Waits until `replicas` replicas hold the writes made so far on the connection that serves
 * `key` (Redis `WAIT`). A failover promotes a replica, so a write the old primary answered but had
 * not copied yet is gone afterwards: a webhook answered 200 on it would be lost. WAIT carries no
 * key; sent in a pipeline behind a read of `key`, it goes to that key's node on a Cluster too, on
 * the same connection as the write it follows.
 */
export type ReplicaWait = (key: string) => Promise<void>;

export function createReplicaWait(redis: RedisClient, replicas: number, commandTimeoutMs: number): ReplicaWait {
  if (replicas === 0) return async () => undefined;
  // Half the command budget, so the WAIT answers (with a count) before the command times out.
  const waitMs = Math.max(1, Math.floor(commandTimeoutMs / 2));
  return async (key) => {
    const [, acknowledged] = await storeCall(() => execAll(redis.pipeline().exists(key).wait(replicas, waitMs)));
    if (typeof acknowledged !== 'number' || acknowledged < replicas)
      throw new StoreUnavailableError(`redis: ${String(acknowledged)} of ${replicas} replicas hold the write`);
  };
}
