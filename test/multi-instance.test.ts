import { randomBytes } from 'node:crypto';
import { createClient, type Client } from 'graphql-ws';
import WebSocket from 'ws';
import { describe, expect, it } from 'vitest';
import { MeDocument } from './__generated__/graphql.js';
import { print } from 'graphql';
import type { Sandbox } from '../src/sandbox/sandbox.js';
import { recordTraffic } from './support/audit.js';
import { Browser } from './support/browser.js';
import { approveConsent } from './support/gateway.js';
import { deploymentEnv, freePort, startInstance, startSharedSandbox, type Instance } from './support/instances.js';
import { track } from './support/leftovers.js';
import { dumpKeys, REDIS_URL, testPrefix, tokenKeysSetting } from './support/redis.js';

const PAYMENTS = 'subscription ($after: String) { paymentUpdated(after: $after) { cursor code paymentId reportedStatus } }';
type PaymentEvent = { paymentUpdated: { cursor: string; code: string; paymentId: string; reportedStatus: string } };

/** One deployment: a shared sandbox and Redis, instances behind a "load balancer" origin. */
async function deployment(count: number) {
  const sandbox = await startSharedSandbox();
  const publicPort = await freePort();
  const publicUrl = `http://localhost:${publicPort}`;
  sandbox.registerRedirectUri(`${publicUrl}/auth/callback`);
  const env = deploymentEnv(sandbox, {
    PUBLIC_URL: publicUrl,
    SESSION_SECRET: randomBytes(32).toString('base64url'),
    REDIS_URL,
    REDIS_KEY_PREFIX: testPrefix(),
    TOKEN_ENCRYPTION_KEYS: tokenKeysSetting(),
  });
  const instances = await Promise.all(Array.from({ length: count }, (_, index) => startInstance(String.fromCharCode(65 + index), env)));
  sandbox.setWebhookUrl(`${instances[0]!.url}/webhooks`);
  let target = instances[0]!;
  const browser = new Browser().routeThrough((url) => (url.host === `localhost:${publicPort}` ? new URL(`${url.pathname}${url.search}`, target.url) : url));
  return {
    sandbox,
    env,
    publicUrl,
    instances,
    browser,
    /** Sends the browser's next requests to this instance (what a load balancer may do). */
    via(instance: Instance) {
      target = instance;
      return browser;
    },
  };
}

type Deployment = Awaited<ReturnType<typeof deployment>>;

async function signInVia(deployed: Deployment, start: Instance, finish: Instance): Promise<string> {
  const login = await deployed.via(start).request(`${deployed.publicUrl}/auth/login`);
  expect(login.status).toBe(302);
  const callback = await approveConsent(deployed.browser, login.location!);
  const landed = await deployed.via(finish).request(callback.href);
  expect(landed.status, landed.text).toBe(303);
  const me = await graphql(deployed, finish);
  const userId = (me.body as { data: { me: { id: string } } }).data.me.id;
  await finish.waitForLog((line) => line.msg === 'webhook subscriptions set up' && line.userId === userId);
  return userId;
}

async function graphql(deployed: Deployment, instance: Instance) {
  const response = await deployed.via(instance).request(`${deployed.publicUrl}/graphql`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ query: print(MeDocument) }) });
  return { status: response.status, body: JSON.parse(response.text) as unknown };
}

function sessionCookie(deployed: Deployment): string {
  return `gw_session=${deployed.browser.cookie(new URL(deployed.publicUrl).host, 'gw_session')}`;
}

/** A graphql-ws client on one instance, carrying the browser's cookie. */
function socketOn(deployed: Deployment, instance: Instance) {
  const cookie = sessionCookie(deployed);
  let resolveClosed!: (code: number) => void;
  const closed = new Promise<number>((resolve) => (resolveClosed = resolve));
  const client: Client = createClient({
    url: `ws://127.0.0.1:${instance.port}/graphql`,
    lazy: false,
    retryAttempts: 0,
    webSocketImpl: class extends WebSocket {
      constructor(address: string, protocols?: string | string[]) {
        super(address, protocols, { headers: { origin: deployed.publicUrl, cookie } });
      }
    },
    on: {
      closed: (event) => resolveClosed((event as { code: number }).code),
      message: (message) => recordTraffic({ url: `ws://${instance.url}`, status: 101, headers: {}, body: JSON.stringify(message) }),
    },
    onNonLazyError: () => undefined,
  });
  track(() => client.dispose());
  return { client, closed };
}

/** Subscribes and resolves once the instance has the subscription. */
async function paymentEvents(instance: Instance, client: Client, after?: string) {
  const started = instance.logs.filter((line) => line.msg === 'subscription started').length;
  const iterator = client.iterate<PaymentEvent>({ query: PAYMENTS, variables: { after } });
  const first = iterator.next();
  first.catch(() => undefined);
  await instance.waitForLog(() => instance.logs.filter((line) => line.msg === 'subscription started').length > started);
  let pending: typeof first | undefined = first;
  return {
    async next(): Promise<PaymentEvent['paymentUpdated']> {
      const result = await (pending ?? iterator.next());
      pending = undefined;
      if (result.done) throw new Error('subscription ended');
      if (!result.value.data) throw new Error(JSON.stringify(result.value.errors));
      return result.value.data.paymentUpdated;
    },
  };
}

/** A webhook signed as the platform signs it, POSTed to one instance. */
async function postWebhook(sandbox: Sandbox, instance: Instance, body: string): Promise<{ status: number; body: unknown }> {
  const signed = sandbox.signingKeys.sign(Buffer.from(body));
  const response = await fetch(`${instance.url}/webhooks`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-service-signature': signed.signature, 'x-service-signing-key': String(signed.keyId) },
    body,
  });
  return { status: response.status, body: await response.json() };
}

function paymentWebhook(state: string, id: string, status = 'SENT'): string {
  return JSON.stringify({ webhook_type: 'PAYMENT', webhook_code: 'UPDATE', state, item_id: id, status, nonce: randomBytes(4).toString('hex') });
}

function routingState(sandbox: Sandbox, userId: string): string {
  return sandbox.webhookSubscriptions().find((hook) => hook.userId === userId)!.state!;
}

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
    expect((await postWebhook(deployed.sandbox, a, paymentWebhook(state, 'payment_1'))).body).toEqual({ status: 'published' });
    expect((await events.next()).paymentId).toBe('payment_1');

    // The same signed body raced to B and C is processed exactly once.
    const raced = paymentWebhook(state, 'payment_2');
    const answers = await Promise.all([postWebhook(deployed.sandbox, b, raced), postWebhook(deployed.sandbox, c, raced)]);
    expect(answers.map((answer) => (answer.body as { status: string }).status).sort()).toEqual(['duplicate', 'published']);
    expect((await postWebhook(deployed.sandbox, a, paymentWebhook(state, 'payment_3'))).status).toBe(200);
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
    expect((await postWebhook(deployed.sandbox, a, paymentWebhook(state, 'payment_0'))).status).toBe(200);
    const seen = await events.next();
    await first.client.dispose();

    // Three events while the subscriber is away, acknowledged only once stored.
    for (const id of ['payment_1', 'payment_2', 'payment_3']) expect((await postWebhook(deployed.sandbox, b, paymentWebhook(state, id))).body).toEqual({ status: 'published' });

    const second = socketOn(deployed, a);
    const resumed = await paymentEvents(a, second.client, seen.cursor);
    const replayed = [await resumed.next(), await resumed.next(), await resumed.next()];
    expect(replayed.map((event) => event.paymentId)).toEqual(['payment_1', 'payment_2', 'payment_3']);
    expect((await postWebhook(deployed.sandbox, b, paymentWebhook(state, 'payment_4'))).status).toBe(200);
    const live = await resumed.next();
    expect(live.paymentId).toBe('payment_4');

    // Kill -9 the instance holding the socket while events keep coming; resume on the other one.
    const acknowledged: string[] = [];
    let last = live.cursor;
    const flowing = (async () => {
      for (let n = 5; n < 15; n += 1) {
        const id = `payment_${n}`;
        if ((await postWebhook(deployed.sandbox, b, paymentWebhook(state, id))).status === 200) acknowledged.push(id);
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
