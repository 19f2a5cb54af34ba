import { StoreUnavailableError } from '../lib/store-unavailable.js';
import { execAll, storeCall, type RedisClient } from './redis-client.js';

/**
 * Waits until `replicas` replicas hold the writes made so far on the connection that serves
 * `key` (Redis `WAIT`). A failover promotes a replica, so a write the old primary answered but had
 * not copied yet is gone afterwards: a webhook answered 200 on it would be lost. WAIT carries no
 * key; sent in a pipeline behind a read of `key`, it goes to that key's node on a Cluster too, on
 * the same connection as the write it follows.
 *
 * A primary with no replica connected at all (as right after a failover, until the old primary
 * comes back as a replica) has nothing to copy to and nothing a failover could promote: the write
 * is as safe as that deployment allows, and refusing every webhook until a replica returns would
 * only stop the service. Fewer replicas than asked, but some, that do not confirm in time: 503.
 */
export type ReplicaWait = (key: string) => Promise<void>;

export function createReplicaWait(redis: RedisClient, replicas: number, commandTimeoutMs: number): ReplicaWait {
  if (replicas === 0) return async () => undefined;
  // Half the command budget, so the WAIT answers (with a count) before the command times out.
  const waitMs = Math.max(1, Math.floor(commandTimeoutMs / 2));
  return async (key) => {
    const [, acknowledged] = await storeCall(() => execAll(redis.pipeline().exists(key).wait(replicas, waitMs)));
    if (typeof acknowledged === 'number' && acknowledged >= replicas) return;
    const [, role] = await storeCall(() => execAll(redis.pipeline().exists(key).role()));
    const connected = Array.isArray(role) && Array.isArray(role[2]) ? role[2].length : undefined;
    if (connected === 0) return;
    throw new StoreUnavailableError(`redis: ${String(acknowledged)} of ${replicas} replicas hold the write`);
  };
}
