import { describe, expect, it } from 'vitest';
import {
  deployment,
  expectPublishedOnce,
  graphql,
  paymentEvents,
  postPayment,
  routingState,
  signInVia,
  socketOn,
} from '../support/deployment.js';
import type { Instance } from '../support/instances.js';
import { ownTopologies } from '../support/redis-topologies.js';

const topologies = ownTopologies();

async function ready(instance: Instance): Promise<void> {
  const deadline = Date.now() + 20_000;
  while ((await fetch(`${instance.url}/readyz`).catch(() => undefined))?.status !== 200) {
    if (Date.now() > deadline) throw new Error(`${instance.name} did not become ready`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

describe('gateway processes on other Redis topologies, with the same code', () => {
  it('on a Redis Cluster: share sessions, events, deduplication and session endings', async () => {
    const deployed = await deployment(2, topologies.cluster!.env);
    const [a, b] = deployed.instances as [Instance, Instance];
    const userId = await signInVia(deployed, a, b);
    for (const instance of [a, b]) expect((await graphql(deployed, instance)).status).toBe(200);

    const { client } = socketOn(deployed, b);
    const events = await paymentEvents(b, client);
    const state = routingState(deployed.sandbox, userId);
    expect((await postPayment(deployed, a, state, 'payment_1')).body).toEqual({
      status: 'published',
    });
    expect((await events.next()).paymentId).toBe('payment_1');

    await expectPublishedOnce(deployed, [a, b], state, 'payment_2');
    const second = await events.next();
    expect(second.paymentId).toBe('payment_2');

    // A subscriber that was away resumes from its cursor on the other instance.
    await client.dispose();
    expect((await postPayment(deployed, b, state, 'payment_3')).status).toBe(200);
    const again = socketOn(deployed, a);
    const resumed = await paymentEvents(a, again.client, second.cursor);
    expect((await resumed.next()).paymentId).toBe('payment_3');

    const logout = await deployed.via(b).request(`${deployed.publicUrl}/auth/logout`, { method: 'POST' });
    expect(logout.status).toBe(204);
    expect(await again.closed).toBe(4401);
  }, 60_000);

  it('behind Sentinel: keeps sessions and delivers events across a failover of the primary', async () => {
    const deployed = await deployment(2, topologies.sentinel!.env);
    const [a, b] = deployed.instances as [Instance, Instance];
    const userId = await signInVia(deployed, a, a);
    const state = routingState(deployed.sandbox, userId);
    const { client } = socketOn(deployed, b);
    const events = await paymentEvents(b, client);
    expect((await postPayment(deployed, a, state, 'payment_1')).status).toBe(200);
    const before = await events.next();
    expect(before.paymentId).toBe('payment_1');

    await topologies.sentinel!.failOver();
    await Promise.all([ready(a), ready(b)]);

    // The same cookie works on both instances against the promoted replica.
    for (const instance of [a, b]) expect((await graphql(deployed, instance)).status).toBe(200);
    // The open socket survived, and its subscription follows the new primary.
    expect((await postPayment(deployed, a, state, 'payment_2')).status).toBe(200);
    expect((await events.next()).paymentId).toBe('payment_2');
  }, 60_000);
});
