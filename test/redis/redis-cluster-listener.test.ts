import { randomBytes } from 'node:crypto';
import { Redis } from 'ioredis';
import { describe, expect, it } from 'vitest';
import { createLogger } from '@open-finance-gateway/common/logger';
import { createStores, type GatewayStores } from '../../src/app/stores.js';
import { loadConfig } from '../../src/config/config.js';
import { userTag } from '../../src/redis/redis-keys.js';
import { ask, nextWithin, paymentEvent } from '../support/cluster-pubsub.js';
import { startReplicatedCluster, type ReplicatedCluster } from '../support/fault-redis.js';
import { track } from '../support/leftovers.js';
import { tokenKeysSetting } from '../support/redis.js';

const logger = createLogger({ level: 'silent' });

/** Well under the 30 s periodic reconcile: only a catch-up on the move itself meets it. */
const DELIVERY_BOUND_MS = 5_000;

/** One gateway's stores on the cluster, as `createStores` wires them in production. */
async function storesOn(cluster: ReplicatedCluster, keyPrefix: string): Promise<GatewayStores> {
  const config = loadConfig({
    ...cluster.env,
    REDIS_KEY_PREFIX: keyPrefix,
    REDIS_WAIT_REPLICAS: '0',
    TOKEN_ENCRYPTION_KEYS: tokenKeysSetting(),
  });
  const stores = await createStores({
    config,
    clock: Date.now,
    logger,
    onSessionExpired: () => undefined,
    onBankConnectionExpired: () => undefined,
  });
  track(() => stores.close());
  return stores;
}

/** The port of the node whose connections include a subscriber to `channel` (pub/sub is per node). */
async function nodeSubscribedTo(ports: number[], channel: string): Promise<number> {
  for (const port of ports) {
    const [, count] = (await ask(port, 'PUBSUB', 'NUMSUB', channel)) as [string, number];
    if (count > 0) return port;
  }
  throw new Error(`no node has a subscriber to ${channel}`);
}

/**
 * Subscribers of `channel` on every node in `ports`: `heard(text)` resolves once each has received a
 * message containing `text`, so a PUBLISH has crossed the cluster bus to all of them.
 */
async function witnesses(ports: number[], channel: string) {
  const heard = new Map<Redis, string[]>();
  const waiting = new Set<() => void>();
  for (const port of ports) {
    const witness = new Redis(port, '127.0.0.1', { lazyConnect: true, maxRetriesPerRequest: 0 });
    track(() => witness.disconnect());
    heard.set(witness, []);
    witness.on('message', (_channel: string, message: string) => {
      heard.get(witness)!.push(message);
      for (const check of waiting) check();
    });
    await witness.connect();
    await witness.subscribe(channel);
  }
  return {
    heard: (text: string) =>
      new Promise<void>((resolve) => {
        const check = () =>
          [...heard.values()].every((messages) => messages.some((m) => m.includes(text))) && resolve();
        waiting.add(check);
        check();
      }),
  };
}

/** A user whose stream is served by a primary other than `port`. */
async function userAwayFrom(ports: number[], port: number, keyPrefix: string): Promise<string> {
  const slots = (await ask(
    ports.find((other) => other !== port)!,
    'CLUSTER',
    'SLOTS',
  )) as Array<[number, number, [string, number]]>;
  for (let n = 0; ; n += 1) {
    const userId = `user_move_${n}`;
    const slot = Number(await ask(ports[0]!, 'CLUSTER', 'KEYSLOT', `${keyPrefix}{u:${userTag(userId)}}:events`));
    const owner = slots.find(([from, to]) => slot >= from && slot <= to)![2][1];
    if (owner !== port) return userId;
  }
}

describe('the event reader on a Cluster when the node holding its listener dies', () => {
  it('hands on an event announced while that node was frozen, then killed, without waiting for the reconcile', async () => {
    const cluster = await startReplicatedCluster();
    track(() => cluster.stop());
    const ports = cluster.connection.nodes.map((node) => node.port);
    const keyPrefix = `ofg-test-${randomBytes(4).toString('hex')}:`;
    const [reader, writer] = [await storesOn(cluster, keyPrefix), await storesOn(cluster, keyPrefix)];

    // Where the reader listens does not depend on the user: find it with a first follower.
    const probe = reader.eventLog.subscribe('user_probe');
    await probe.started;
    const node = await nodeSubscribedTo(ports, `${keyPrefix}{u:${userTag('user_probe')}}:events:live`);
    const userId = await userAwayFrom(ports, node, keyPrefix);
    const live = reader.eventLog.subscribe(userId);
    await live.started;
    await probe.return!();

    const first = await writer.eventLog.publish(userId, paymentEvent('before'));
    expect(await nextWithin(live, DELIVERY_BOUND_MS)).toMatchObject({ cursor: first });

    // Announced while the node is frozen: its subscriber hears nothing, and the node then dies once
    // the announcement has reached every other node (so no node it moves to can still hear it).
    const others = await witnesses(
      ports.filter((port) => port !== node),
      `${keyPrefix}{u:${userTag(userId)}}:events:live`,
    );
    await cluster.freeze(node);
    const missed = await writer.eventLog.publish(userId, paymentEvent('while frozen'));
    await others.heard('while frozen');
    await cluster.killNode(node);
    expect(await nextWithin(live, DELIVERY_BOUND_MS)).toMatchObject({ cursor: missed });

    // And live delivery goes on from the node it moved to, each event once, in order.
    const after = await writer.eventLog.publish(userId, paymentEvent('after'));
    expect(await nextWithin(live, DELIVERY_BOUND_MS)).toMatchObject({ cursor: after });
    await live.return!();
  }, 90_000);
});
