import { randomBytes } from 'node:crypto';
import { print } from 'graphql';
import { createClient, type Client } from 'graphql-ws';
import { expect } from 'vitest';
import WebSocket from 'ws';
import type { Sandbox } from '@open-finance-gateway/sandbox';
import { MeDocument } from '../__generated__/graphql.js';
import { recordTraffic } from './audit.js';
import { Browser } from './browser.js';
import { approveConsent, MFA_DEMO_USERS, signInToApp, startConnection } from './gateway.js';
import { behindLoadBalancer, startInstance, startSharedSandbox, type Instance } from './instances.js';
import { track } from './leftovers.js';
import { REDIS_URL, testPrefix } from './redis.js';
import { sessionCookie as cookieOf } from './session-cookie.js';

/** Helpers for tests of a deployment: gateway processes on one Redis and one sandbox, reached as a load balancer would. */

export const PAYMENTS =
  'subscription ($after: String) { paymentUpdated(after: $after) { cursor code paymentId reportedStatus } }';
export type PaymentEvent = {
  paymentUpdated: { cursor: string; code: string; paymentId: string; reportedStatus: string };
};

/**
 * One deployment: a shared sandbox and Redis, instances behind a "load balancer" origin. `redis`
 * is the REDIS_* settings (default: the shared Redis, under a prefix of this test's own).
 */
export async function deployment(
  count: number,
  redis: Record<string, string> = { REDIS_URL },
  /** Each instance's build (an earlier version's entry, see previous-version.ts); this checkout's when absent. */
  entries: ReadonlyArray<string | undefined> = [],
) {
  const sandbox = await startSharedSandbox();
  const { publicPort, publicUrl, env } = await behindLoadBalancer(sandbox, {
    ...redis,
    REDIS_KEY_PREFIX: testPrefix(),
  });
  const instances = await Promise.all(
    Array.from({ length: count }, (_, index) =>
      startInstance(String.fromCharCode(65 + index), env, undefined, entries[index]),
    ),
  );
  sandbox.setWebhookUrl(`${instances[0]!.url}/webhooks`);
  let target = instances[0]!;
  const browser = new Browser().routeThrough((url) =>
    url.host === `localhost:${publicPort}` ? new URL(`${url.pathname}${url.search}`, target.url) : url,
  );
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

export type Deployment = Awaited<ReturnType<typeof deployment>>;

/**
 * Signs the first demo app user in and connects their bank, the flows starting on `start` and the
 * platform's callback landing on `finish` (a load balancer without affinity). Returns the
 * platform's id of the connected user (what the sandbox's webhook subscriptions carry).
 */
export async function signInVia(deployed: Deployment, start: Instance, finish: Instance): Promise<string> {
  const email = MFA_DEMO_USERS[0]!;
  const signedIn = await signInToApp(deployed.via(start), deployed.sandbox, deployed.publicUrl, email);
  expect(signedIn.status, signedIn.text).toBe(303);
  const login = await startConnection(deployed.via(start), deployed.publicUrl);
  expect(login.status).toBe(302);
  const callback = await approveConsent(deployed.browser, login.location!);
  const landed = await deployed.via(finish).request(callback.href);
  expect(landed.status, landed.text).toBe(303);
  const me = await graphql(deployed, finish);
  const userId = (me.body as { data: { me: { id: string } } }).data.me.id;
  const appUser = deployed.sandbox.identity.users.byEmail(email)!.sub;
  await finish.events.waitFor('webhooks-registered', (event) => event.userId === appUser);
  return userId;
}

export async function graphql(deployed: Deployment, instance: Instance) {
  const response = await deployed.via(instance).request(`${deployed.publicUrl}/graphql`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ query: print(MeDocument) }),
  });
  return { status: response.status, body: JSON.parse(response.text) as unknown };
}

export function sessionCookie(deployed: Deployment): string {
  return cookieOf(deployed.browser, deployed.publicUrl);
}

/** A graphql-ws client on one instance, carrying the browser's cookie. */
export function socketOn(deployed: Deployment, instance: Instance) {
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
      message: (message) =>
        recordTraffic({ url: `ws://${instance.url}`, status: 101, headers: {}, body: JSON.stringify(message) }),
    },
    onNonLazyError: () => undefined,
  });
  track(() => client.dispose());
  return { client, closed };
}

/** Subscribes and resolves once the instance has the subscription. */
export async function paymentEvents(instance: Instance, client: Client, after?: string) {
  const started = instance.events.more('subscription-started', 1);
  const iterator = client.iterate<PaymentEvent>({ query: PAYMENTS, variables: { after } });
  const first = iterator.next();
  first.catch(() => undefined);
  await started;
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
export async function postWebhook(
  sandbox: Sandbox,
  instance: Instance,
  body: string,
): Promise<{ status: number; body: unknown }> {
  const signed = sandbox.signingKeys.sign(Buffer.from(body));
  const response = await fetch(`${instance.url}/webhooks`, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      'x-service-signature': signed.signature,
      'x-service-signing-key': String(signed.keyId),
    },
    body,
  });
  return { status: response.status, body: await response.json() };
}

/** A payment webhook for the user whose routing state is `state`, signed and POSTed to one instance. */
export function postPayment(deployed: Deployment, instance: Instance, state: string, paymentId: string) {
  return postWebhook(deployed.sandbox, instance, paymentWebhook(state, paymentId));
}

/**
 * One signed payment webhook POSTed to two instances at once: exactly one publishes it, and the
 * other is told it is in progress (503, retried) or, if it came after, a duplicate. Returns the
 * body, for a retry.
 */
export async function expectPublishedOnce(
  deployed: Deployment,
  instances: [Instance, Instance],
  state: string,
  paymentId: string,
): Promise<string> {
  const body = paymentWebhook(state, paymentId);
  const answers = await Promise.all(instances.map((instance) => postWebhook(deployed.sandbox, instance, body)));
  const outcome = (answer: { status: number; body: unknown }) =>
    answer.status === 503 ? 'in progress' : (answer.body as { status: string }).status;
  expect(answers.map(outcome).filter((status) => status === 'published')).toHaveLength(1);
  expect(answers.map(outcome).filter((status) => status !== 'published')).toEqual([
    expect.stringMatching(/^(in progress|duplicate)$/),
  ]);
  return body;
}

export function paymentWebhook(state: string, id: string, status = 'SENT'): string {
  return JSON.stringify({
    webhook_type: 'PAYMENT',
    webhook_code: 'UPDATE',
    state,
    item_id: id,
    status,
    nonce: randomBytes(4).toString('hex'),
  });
}

export function routingState(sandbox: Sandbox, userId: string): string {
  return sandbox.webhookSubscriptions().find((hook) => hook.userId === userId)!.state!;
}

const KEPT_READ = `query Read($accountId: ID!) {
  accounts { id balance { current } }
  account(id: $accountId) { id balance { current } }
  transactions(accountId: $accountId, first: 20) { nodes { id amount } }
  all: transactions(first: 50) { nodes { id } }
}`;

/** What a home screen reads of kept data: the accounts, one account, its first page and the first page of all. */
export interface KeptRead {
  accounts: Array<{ id: string; balance: { current: number } }>;
  account: { id: string; balance: { current: number } };
  transactions: { nodes: Array<{ id: string; amount: number }> };
  all: { nodes: Array<{ id: string }> };
}

/** That read, on one instance, with the browser's cookie; fails the test on any error. */
export async function readKept(deployed: Deployment, instance: Instance, accountId: string): Promise<KeptRead> {
  const response = await deployed.via(instance).request(`${deployed.publicUrl}/graphql`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ query: KEPT_READ, variables: { accountId } }),
  });
  const body = JSON.parse(response.text) as { data: KeptRead; errors?: unknown };
  expect(body.errors, `${instance.name}: ${response.text.slice(0, 300)}`).toBeUndefined();
  return body.data;
}
