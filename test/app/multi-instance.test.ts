import { describe, expect, it } from 'vitest';
import {
  deployment,
  expectPublishedOnce,
  graphql,
  paymentEvents,
  postPayment,
  postWebhook,
  routingState,
  signInVia,
  socketOn,
} from '../support/deployment.js';
import { startInstance, type Instance } from '../support/instances.js';
import { dumpKeys } from '../support/redis.js';

describe('several gateway processes, one Redis', () => {
  it('share sign-in, sessions, webhooks, deduplication and session endings', async () => {
    const deployed = await deployment(3);
    const [a, b, c] = deployed.instances as [Instance, Instance, Instance];

    // A sign-in started on A completes on B; B and C both accept the cookie.
    const userId = await signInVia(deployed, a, b);
    for (const instance of [b, c]) expect((await graphql(deployed, instance)).status).toBe(200);

    // A subscriber on C receives a webhook POSTed to A.
    const { client, closed } = socketOn(deployed, c);
    const events = await paymentEvents(c, client);
    const state = routingState(deployed.sandbox, userId);
    expect((await postPayment(deployed, a, state, 'payment_1')).body).toEqual({
      status: 'published',
    });
    expect((await events.next()).paymentId).toBe('payment_1');

    // The same signed body raced to B and C is processed exactly once: the other is told it is
    // in progress (503, retried) or, if it came after, a duplicate; a retry then is a duplicate.
    const raced = await expectPublishedOnce(deployed, [b, c], state, 'payment_2');
    expect((await postWebhook(deployed.sandbox, b, raced)).body).toEqual({ status: 'duplicate' });
    expect((await postPayment(deployed, a, state, 'payment_3')).status).toBe(200);
    expect([(await events.next()).paymentId, (await events.next()).paymentId]).toEqual(['payment_2', 'payment_3']);

    // Logout on B closes the socket on C.
    const logout = await deployed.via(b).request(`${deployed.publicUrl}/auth/logout`, { method: 'POST' });
    expect(logout.status).toBe(204);
    expect(await closed).toBe(4401);

    // No platform token is stored in clear.
    const stored = await dumpKeys(deployed.env.REDIS_KEY_PREFIX!);
    expect(stored.length).toBeGreaterThan(0);
    const tokens = deployed.sandbox.issuedTokens();
    expect(stored.filter(([, value]) => tokens.some((token) => value.includes(token)))).toEqual([]);
  }, 60_000);

  it('replays what a subscriber missed when it resumes on another instance, and survives a kill -9 of its instance', async () => {
    const deployed = await deployment(2);
    const [a, b] = deployed.instances as [Instance, Instance];
    const userId = await signInVia(deployed, a, a);
    const state = routingState(deployed.sandbox, userId);

    const first = socketOn(deployed, b);
    const events = await paymentEvents(b, first.client);
    expect((await postPayment(deployed, a, state, 'payment_0')).status).toBe(200);
    const seen = await events.next();
    await first.client.dispose();

    // Three events while the subscriber is away, acknowledged only once stored.
    for (const id of ['payment_1', 'payment_2', 'payment_3'])
      expect((await postPayment(deployed, b, state, id)).body).toEqual({ status: 'published' });

    const second = socketOn(deployed, a);
    const resumed = await paymentEvents(a, second.client, seen.cursor);
    const replayed = [await resumed.next(), await resumed.next(), await resumed.next()];
    expect(replayed.map((event) => event.paymentId)).toEqual(['payment_1', 'payment_2', 'payment_3']);
    expect((await postPayment(deployed, b, state, 'payment_4')).status).toBe(200);
    const live = await resumed.next();
    expect(live.paymentId).toBe('payment_4');

    // Kill -9 the instance holding the socket while events keep coming; resume on the other one.
    const acknowledged: string[] = [];
    let last = live.cursor;
    const flowing = (async () => {
      for (let n = 5; n < 15; n += 1) {
        const id = `payment_${n}`;
        if ((await postPayment(deployed, b, state, id)).status === 200) acknowledged.push(id);
      }
    })();
    const delivered: string[] = [];
    const killed = (async () => {
      for (;;) {
        const event = await resumed.next().catch(() => undefined);
        if (!event) return;
        delivered.push(event.paymentId);
        last = event.cursor;
        if (delivered.length === 3) a.process.kill('SIGKILL');
      }
    })();
    await Promise.all([flowing, killed]);
    await a.exited;

    const third = socketOn(deployed, b);
    const recovered = await paymentEvents(b, third.client, last);
    while (delivered.length < acknowledged.length) delivered.push((await recovered.next()).paymentId);
    expect(delivered).toEqual(acknowledged);
  }, 60_000);

  it('keeps everyone signed in across a restart of every instance', async () => {
    const deployed = await deployment(2);
    const [a] = deployed.instances as [Instance, Instance];
    await signInVia(deployed, a, a);
    const exchanges = deployed.sandbox.requests({ method: 'POST', path: '/v1/token' }).length;
    for (const instance of deployed.instances) {
      instance.process.kill('SIGTERM');
      await instance.exited;
    }
    const restarted = await Promise.all(['A2', 'B2'].map((name) => startInstance(name, deployed.env)));
    for (const instance of restarted) {
      const answer = await graphql(deployed, instance);
      expect(answer.status).toBe(200);
      expect((answer.body as { data: { me: { id: string } } }).data.me.id).toMatch(/^user_/);
    }
    expect(deployed.sandbox.requests({ method: 'POST', path: '/v1/token' })).toHaveLength(exchanges);
  }, 60_000);
});
