import { meros } from 'meros/browser';
import { describe, expect, it } from 'vitest';
import type { Browser } from '../../support/browser.js';
import { startGateway, type TestGateway } from '../../support/gateway.js';
import {
  multipartSubscription,
  revokeAllAccessAs,
  sseSubscription,
  type StreamReader,
} from '../../support/http-streams.js';
import { track } from '../../support/leftovers.js';
import { sessionCookie } from '../../support/session-cookie.js';
import { socketClient, subscribe } from '../../support/sockets.js';
import { signedInUser } from '../../support/webhooks.js';

const PAYMENT_UPDATED = `subscription ($after: String) { paymentUpdated(after: $after) { code paymentId reportedStatus cursor payment { id status } } }`;
const ACCESS_REVOKED = 'subscription { accessRevoked { reason } }';

type PaymentUpdate = { paymentId: string; reportedStatus: string; cursor: string; payment: { status: string } };

const cookieOf = (gateway: TestGateway, browser: Browser) => sessionCookie(browser, gateway.url);

const TRANSPORTS = [
  { name: 'Apollo Client 4 over multipart HTTP', open: multipartSubscription },
  { name: 'graphql-sse createClient', open: sseSubscription },
] as const;

/** The coded error a stream ended with: Apollo Client's protocol errors, or graphql-sse's last result. */
async function endingCode(reader: StreamReader): Promise<unknown> {
  for (;;) {
    const item = await reader.next();
    if (item.kind === 'complete') throw new Error('completed without an error');
    if (item.kind === 'error') {
      const error = item.error as { errors?: Array<{ extensions?: { code?: unknown } }> };
      return error.errors?.[0]?.extensions?.code;
    }
    if (item.value.errors?.length) return item.value.errors[0]!.extensions?.code;
  }
}

/** A raw POST /graphql asking for the multipart protocol. */
function multipartPost(gateway: TestGateway, headers: Record<string, string>, query: string, signal?: AbortSignal) {
  return fetch(`${gateway.url}/graphql`, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      accept: 'multipart/mixed;subscriptionSpec="1.0", application/json',
      ...headers,
    },
    body: JSON.stringify({ query }),
    signal,
  });
}

describe.each(TRANSPORTS)('subscriptions over HTTP: $name', ({ open }) => {
  it("receives a payment's statuses, each read fresh, and resumes after a cursor with nothing lost", async () => {
    const gateway = await startGateway();
    const { browser, userId } = await signedInUser(gateway);
    const cookie = cookieOf(gateway, browser);
    const started = gateway.subscriptionsStarted(1, 'PAYMENT');
    const live = open(gateway, { cookie }, PAYMENT_UPDATED);
    await started;

    const payment = gateway.sandbox.payments.createPayment(userId, { amount: 12 });
    const first = (await live.reader.data<{ paymentUpdated: PaymentUpdate }>()).paymentUpdated;
    expect(first.paymentId).toBe(payment._id);
    gateway.sandbox.payments.advancePayment(payment._id, { status: 'SENT' });
    const second = (await live.reader.data<{ paymentUpdated: PaymentUpdate }>()).paymentUpdated;
    expect(second).toMatchObject({ paymentId: payment._id, payment: { status: 'SENT' } });
    live.stop();

    const resumed = open(gateway, { cookie }, PAYMENT_UPDATED, { after: first.cursor });
    const replayed = (await resumed.reader.data<{ paymentUpdated: PaymentUpdate }>()).paymentUpdated;
    expect(replayed.cursor).toBe(second.cursor);
    expect(replayed.payment.status).toBe('SENT');
  });

  it('ends the stream with UNAUTHENTICATED on sign-out', async () => {
    const gateway = await startGateway();
    const { browser } = await signedInUser(gateway);
    const started = gateway.subscriptionsStarted(1, 'ACCOUNT');
    const live = open(gateway, { cookie: cookieOf(gateway, browser) }, 'subscription { accountEvents { code } }');
    await started;
    const ended = gateway.waitForEvent('subscription-ended', (event) => event.type === 'ACCOUNT');
    await browser.request(`${gateway.url}/auth/logout`, { method: 'POST' });
    expect(await endingCode(live.reader)).toBe('UNAUTHENTICATED');
    await ended;
  });

  it('ends the stream with UNAUTHENTICATED when the user revokes all access', async () => {
    const gateway = await startGateway();
    const { browser } = await signedInUser(gateway);
    const started = gateway.subscriptionsStarted(1, 'INCOME');
    const live = open(gateway, { cookie: cookieOf(gateway, browser) }, 'subscription { incomeEvents { incomeId } }');
    await started;
    expect(await revokeAllAccessAs(gateway, browser)).toEqual({ data: { revokeAllAccess: { revoked: true } } });
    expect(await endingCode(live.reader)).toBe('UNAUTHENTICATED');
  });

  it('delivers accessRevoked, then ends the stream with UNAUTHENTICATED, when the platform deletes the token', async () => {
    const gateway = await startGateway();
    const { browser, userId } = await signedInUser(gateway);
    const started = gateway.subscriptionsStarted(1, 'TOKEN');
    const live = open(gateway, { cookie: cookieOf(gateway, browser) }, ACCESS_REVOKED);
    await started;
    gateway.sandbox.revokeUserTokens(userId);
    expect((await live.reader.data<{ accessRevoked: { reason: string } }>()).accessRevoked.reason).toBe(
      'TOKEN_REVOKED',
    );
    expect(await endingCode(live.reader)).toBe('UNAUTHENTICATED');
  });

  it('ends the stream with SERVICE_UNAVAILABLE when the gateway shuts down, and the shutdown does not wait for it', async () => {
    const gateway = await startGateway();
    const { browser } = await signedInUser(gateway);
    const started = gateway.subscriptionsStarted(1, 'INCOME');
    const live = open(gateway, { cookie: cookieOf(gateway, browser) }, 'subscription { incomeEvents { incomeId } }');
    await started;
    const ending = endingCode(live.reader);
    await gateway.app.stop();
    expect(await ending).toBe('SERVICE_UNAVAILABLE');
  });

  it('refuses a cursor that cannot be resumed from with CURSOR_EXPIRED', async () => {
    const gateway = await startGateway();
    const { browser } = await signedInUser(gateway);
    const live = open(gateway, { cookie: cookieOf(gateway, browser) }, PAYMENT_UPDATED, { after: 'not-a-cursor' });
    expect(await endingCode(live.reader)).toBe('CURSOR_EXPIRED');
  });
});

describe('subscription streams share the socket caps', () => {
  it('refuses the stream past WS_MAX_SOCKETS_PER_SESSION with 429 LIMIT_EXCEEDED, counting sockets and streams alike', async () => {
    const gateway = await startGateway({ WS_MAX_SOCKETS_PER_SESSION: '2' });
    const { browser } = await signedInUser(gateway);
    const cookie = cookieOf(gateway, browser);
    await subscribe(
      gateway,
      socketClient(gateway, browser).client,
      'subscription { accountEvents { code } }',
      'ACCOUNT',
    );
    const started = gateway.subscriptionsStarted(1, 'INCOME');
    sseSubscription(gateway, { cookie }, 'subscription { incomeEvents { incomeId } }');
    await started;

    const before = gateway.sandbox.requests().length;
    const refused = await multipartPost(gateway, { cookie }, 'subscription { incomeEvents { incomeId } }');
    expect(refused.status).toBe(429);
    expect(await refused.json()).toMatchObject({
      errors: [{ extensions: { code: 'LIMIT_EXCEEDED', limit: 2, cap: 'session' } }],
    });
    const sse = await fetch(`${gateway.url}/graphql/stream`, {
      method: 'POST',
      headers: { cookie, accept: 'text/event-stream', 'content-type': 'application/json' },
      body: JSON.stringify({ query: 'subscription { incomeEvents { incomeId } }' }),
    });
    expect(sse.status).toBe(429);
    expect(gateway.sandbox.requests()).toHaveLength(before);
  });
});

describe('the multipart response', () => {
  it('is multipart/mixed with a heartbeat first, unbuffered, and frees its subscription when the client goes away', async () => {
    const gateway = await startGateway({ ADMIN_TOKEN: 'streams-test-admin-token-0123456789abcdef' });
    const { browser } = await signedInUser(gateway);
    const abort = new AbortController();
    track(() => abort.abort());
    const started = gateway.subscriptionsStarted(1, 'INCOME');
    const response = await multipartPost(
      gateway,
      { cookie: cookieOf(gateway, browser) },
      'subscription { incomeEvents { incomeId } }',
      abort.signal,
    );
    await started;
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toMatch(/^multipart\/mixed; ?boundary="?graphql"?/);
    expect(response.headers.get('cache-control')).toBe('no-cache');
    expect(response.headers.get('x-accel-buffering')).toBe('no');
    const parts = (await meros<Record<string, unknown>>(response)) as AsyncGenerator<{ body: unknown }>;
    expect((await parts.next()).value?.body).toEqual({});

    const ended = gateway.waitForEvent('subscription-ended', (event) => event.type === 'INCOME');
    abort.abort();
    await ended;
    const metrics = await fetch(`${gateway.url}/metrics`, {
      headers: { authorization: 'Bearer streams-test-admin-token-0123456789abcdef' },
    }).then((answer) => answer.text());
    expect(metrics).toMatch(/gateway_subscription_streams_open\{transport="multipart"\} 0\n/);
    expect(metrics).toMatch(/gateway_subscriptions_started_total\{transport="multipart"\} 1\n/);
  });

  it('graphql-sse: a client that goes away frees its subscription too', async () => {
    const gateway = await startGateway();
    const { browser } = await signedInUser(gateway);
    const abort = new AbortController();
    track(() => abort.abort());
    const started = gateway.subscriptionsStarted(1, 'INCOME');
    const response = await fetch(`${gateway.url}/graphql/stream`, {
      method: 'POST',
      headers: { cookie: cookieOf(gateway, browser), accept: 'text/event-stream', 'content-type': 'application/json' },
      body: JSON.stringify({ query: 'subscription { incomeEvents { incomeId } }' }),
      signal: abort.signal,
    });
    await started;
    expect(response.headers.get('content-type')).toMatch(/^text\/event-stream/);
    expect(response.headers.get('cache-control')).toBe('no-cache');
    expect(response.headers.get('x-accel-buffering')).toBe('no');
    const ended = gateway.waitForEvent('subscription-ended', (event) => event.type === 'INCOME');
    abort.abort();
    await ended;
  });

  it('leaves queries with the multipart Accept, and subscriptions without it, to Apollo as before', async () => {
    const gateway = await startGateway();
    const { browser } = await signedInUser(gateway);
    const cookie = cookieOf(gateway, browser);
    const query = await multipartPost(gateway, { cookie }, '{ me { id } }');
    expect(query.headers.get('content-type')).toMatch(/^application\/(graphql-response\+)?json/);
    expect(((await query.json()) as { data: { me: { id: string } } }).data.me.id).toMatch(/^user_/);
    const plain = await fetch(`${gateway.url}/graphql`, {
      method: 'POST',
      headers: { cookie, 'content-type': 'application/json' },
      body: JSON.stringify({ query: 'subscription { incomeEvents { incomeId } }' }),
    });
    expect(plain.status).toBe(400);
    expect(await plain.json()).toMatchObject({ errors: [{ extensions: { code: 'BAD_REQUEST' } }] });
  });
});

describe('what an unauthenticated or cross-site stream gets', () => {
  it('answers a stream without a session 401 UNAUTHENTICATED on both transports, and calls nothing upstream', async () => {
    const gateway = await startGateway();
    const before = gateway.sandbox.requests().length;
    const multipart = await multipartPost(gateway, {}, 'subscription { incomeEvents { incomeId } }');
    expect(multipart.status).toBe(401);
    expect(await multipart.json()).toMatchObject({ errors: [{ extensions: { code: 'UNAUTHENTICATED' } }] });
    const live = sseSubscription(gateway, {}, 'subscription { incomeEvents { incomeId } }');
    const item = await live.reader.next();
    expect(item.kind).toBe('error');
    expect((item as { error: { response?: { status: number } } }).error.response?.status).toBe(401);
    expect(gateway.sandbox.requests()).toHaveLength(before);
    expect(gateway.events('subscription-started')).toHaveLength(0);
  });

  it("applies /graphql's Origin and CSRF rules to cookie clients", async () => {
    const gateway = await startGateway();
    const { browser } = await signedInUser(gateway);
    const cookie = cookieOf(gateway, browser);
    const query = JSON.stringify({ query: 'subscription { incomeEvents { incomeId } }' });
    const stream = (headers: Record<string, string>, method = 'POST') =>
      fetch(
        `${gateway.url}/graphql/stream${method === 'GET' ? `?query=${encodeURIComponent(JSON.parse(query).query)}` : ''}`,
        {
          method,
          headers: { cookie, accept: 'text/event-stream', ...headers },
          body: method === 'GET' ? undefined : query,
        },
      );

    const foreign = await stream({ 'content-type': 'application/json', origin: 'https://evil.example' });
    expect(foreign.status).toBe(403);
    const simple = await stream({ 'content-type': 'text/plain' });
    expect(simple.status).toBe(400);
    expect(await simple.json()).toMatchObject({ errors: [{ extensions: { code: 'BAD_REQUEST' } }] });
    const eventSourceLike = await stream({}, 'GET');
    expect(eventSourceLike.status).toBe(400);
    const multipartSimple = await multipartPost(
      gateway,
      { cookie, 'content-type': 'text/plain' },
      'subscription { incomeEvents { incomeId } }',
    );
    expect(multipartSimple.status).toBe(400);
    expect(gateway.events('subscription-started')).toHaveLength(0);

    const preflighted = await stream({ 'apollo-require-preflight': 'true' }, 'GET');
    expect(preflighted.status).toBe(200);
    expect(preflighted.headers.get('x-accel-buffering')).toBe('no');
    await preflighted.body?.cancel();
  });

  it('serves only subscriptions at /graphql/stream, and only the distinct connections mode', async () => {
    const gateway = await startGateway();
    const { browser } = await signedInUser(gateway);
    const cookie = cookieOf(gateway, browser);
    const query = await fetch(`${gateway.url}/graphql/stream`, {
      method: 'POST',
      headers: { cookie, accept: 'text/event-stream', 'content-type': 'application/json' },
      body: JSON.stringify({ query: '{ me { id } }' }),
    });
    expect(query.status).toBe(400);
    const reserve = await fetch(`${gateway.url}/graphql/stream`, { method: 'PUT', headers: { cookie } });
    expect(reserve.status).toBe(405);
  });
});
