import { once } from 'node:events';
import { describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { MeDocument, RefreshDocument } from '../../__generated__/graphql.js';
import { execute, startGateway, type TestGateway } from '../../support/gateway.js';
import { track } from '../../support/leftovers.js';
import { sessionCookie } from '../../support/session-cookie.js';
import { socketClient, subscribe, wsUrl } from '../../support/sockets.js';
import { signedInUser } from '../../support/webhooks.js';

const PAYMENT_UPDATED = `subscription ($id: ID) { paymentUpdated(paymentId: $id) { code paymentId reportedStatus payment { id status final amount } } }`;

type PaymentEvent = {
  paymentUpdated: {
    code: string;
    paymentId: string;
    reportedStatus: string;
    payment: { id: string; status: string; final: boolean };
  };
};

/** A raw socket, for protocol-level checks. */
function rawSocket(gateway: TestGateway, headers: Record<string, string>) {
  const socket = new WebSocket(wsUrl(gateway), 'graphql-transport-ws', { headers });
  track(() => socket.terminate());
  const closed = new Promise<{ code: number }>((resolve) => socket.once('close', (code) => resolve({ code })));
  const refused = new Promise<number>((resolve) =>
    socket.once('unexpected-response', (_req, res) => resolve(res.statusCode ?? 0)),
  );
  const opened = new Promise<void>((resolve) => socket.once('open', () => resolve()));
  socket.on('error', () => undefined);
  return { socket, closed, refused, opened };
}

describe('subscriptions end to end through the sandbox', () => {
  it('shows the current status of a payment even when READY is delivered after SENT', async () => {
    const gateway = await startGateway();
    const { browser, userId } = await signedInUser(gateway);
    const { client } = socketClient(gateway, browser);
    const events = await subscribe<PaymentEvent>(gateway, client, PAYMENT_UPDATED, 'PAYMENT');

    gateway.sandbox.deliveries.deliverOutOfOrder(() => {
      const payment = gateway.sandbox.payments.createPayment(userId, { amount: 120 });
      gateway.sandbox.payments.advancePayment(payment._id, { status: 'SENT' });
    });
    // SENT arrives first, READY last. A subscriber still busy when READY arrives gets the two
    // coalesced into one (events are signals); either way each event shows the current state.
    const seen = [(await events.next()).data!.paymentUpdated];
    while (seen.at(-1)!.reportedStatus !== 'READY') seen.push((await events.next()).data!.paymentUpdated);
    expect(seen.length).toBeLessThanOrEqual(2);
    for (const event of seen) expect(event.payment).toMatchObject({ status: 'SENT', final: true });
    expect(gateway.sandbox.requests({ method: 'GET', path: `/v1/payments/${seen[0]!.paymentId}` })).toHaveLength(
      seen.length,
    ); // one fresh read per event
  });

  it('gives each user only their own events', async () => {
    const gateway = await startGateway();
    const aroha = await signedInUser(gateway, 0);
    const james = await signedInUser(gateway, 1);
    const arohaEvents = await subscribe<PaymentEvent>(
      gateway,
      socketClient(gateway, aroha.browser).client,
      PAYMENT_UPDATED,
      'PAYMENT',
    );
    const jamesPayment = gateway.sandbox.payments.createPayment(james.userId, { amount: 5 });
    const jamesEvents = await subscribe<PaymentEvent>(
      gateway,
      socketClient(gateway, james.browser).client,
      PAYMENT_UPDATED,
      'PAYMENT',
    );

    gateway.sandbox.payments.advancePayment(jamesPayment._id, { status: 'SENT' });
    const arohaPayment = gateway.sandbox.payments.createPayment(aroha.userId, { amount: 7 });

    expect((await jamesEvents.next()).data!.paymentUpdated.paymentId).toBe(jamesPayment._id);
    // James's SENT reached the gateway before Aroha's payment: had it leaked into her channel,
    // her subscription would have seen it first.
    expect((await arohaEvents.next()).data!.paymentUpdated.paymentId).toBe(arohaPayment._id);
  });

  it('delivers accessRevoked and then closes the socket when the token is revoked outside the app', async () => {
    const gateway = await startGateway();
    const { browser, userId } = await signedInUser(gateway);
    const { client, closed } = socketClient(gateway, browser);
    const events = await subscribe<{ accessRevoked: { reason: string } }>(
      gateway,
      client,
      'subscription { accessRevoked { reason receivedAt } }',
      'TOKEN',
    );

    gateway.sandbox.revokeUserTokens(userId);
    expect((await events.next()).data!.accessRevoked.reason).toBe('TOKEN_REVOKED');
    expect((await closed).code).toBe(4401);
    expect((await execute(gateway, browser, MeDocument)).status).toBe(401);
  });

  it('closes the socket on sign-out', async () => {
    const gateway = await startGateway();
    const { browser } = await signedInUser(gateway);
    const { client, closed } = socketClient(gateway, browser);
    await subscribe(gateway, client, 'subscription { accountEvents { code } }', 'ACCOUNT');
    await browser.request(`${gateway.url}/auth/logout`, { method: 'POST' });
    expect((await closed).code).toBe(4401);
  });

  it('sends the new transactions a refresh produced, read fresh, filtered to one account', async () => {
    const gateway = await startGateway();
    const { browser } = await signedInUser(gateway);
    const everyday = gateway.sandbox.world().accounts.find((account) => account.name === 'Everyday')!;
    const events = await subscribe<{
      transactionEvents: {
        code: string;
        accountId: string;
        newTransactionCount: number;
        newTransactions: Array<{ id: string; accountId: string; description: string }>;
      };
    }>(
      gateway,
      socketClient(gateway, browser).client,
      'subscription ($id: ID) { transactionEvents(accountId: $id) { code accountId newTransactionCount newTransactions { id accountId description } } }',
      'TRANSACTION',
      { id: everyday._id },
    );
    // A refresh announces a new row on each everyday and credit card account.
    const refreshed = gateway.sandbox
      .world()
      .accounts.filter((account) => account.sandboxUserId === everyday.sandboxUserId && account.sandboxShared)
      .filter((account) => account.type === 'CHECKING' || account.type === 'CREDITCARD').length;
    let announced = 0;
    const allAnnounced = gateway.waitForEvent(
      'webhook-published',
      (published) => published.type === 'TRANSACTION' && ++announced === refreshed,
    );
    await execute(gateway, browser, RefreshDocument, {});
    const event = (await events.next()).data!.transactionEvents;
    expect(event).toMatchObject({ code: 'DEFAULT_UPDATE', accountId: everyday._id, newTransactionCount: 1 });
    expect(event.newTransactions).toEqual([
      expect.objectContaining({ accountId: everyday._id, id: expect.stringMatching(/^trans_/) }),
    ]);
    // Each webhook is read once to judge it by its content, and the event shown once more: the
    // store is off, so nothing keeps the first read.
    await allAnnounced;
    expect(gateway.sandbox.requests({ method: 'POST', path: '/v1/transactions/ids' })).toHaveLength(refreshed + 1);
  });

  it('follows a transfer to RECEIVED', async () => {
    const gateway = await startGateway();
    const { browser, userId } = await signedInUser(gateway);
    const events = await subscribe<{
      transferUpdated: {
        code: string;
        reportedStatus: string | null;
        fundsReceivedAt: string | null;
        transfer: { status: string };
      };
    }>(
      gateway,
      socketClient(gateway, browser).client,
      'subscription { transferUpdated { code reportedStatus fundsReceivedAt transfer { status } } }',
      'TRANSFER',
    );
    const transfer = gateway.sandbox.payments.createTransfer(userId, 300);
    gateway.sandbox.payments.advanceTransfer(transfer._id, { status: 'SENT' });
    gateway.sandbox.payments.markTransferReceived(transfer._id);
    // Two UPDATEs and a RECEIVED; the UPDATEs may be coalesced if they arrive while the subscriber is busy.
    const seen = [(await events.next()).data!.transferUpdated];
    while (!seen.some((e) => e.code === 'RECEIVED') || seen.filter((e) => e.code === 'UPDATE').length === 0)
      seen.push((await events.next()).data!.transferUpdated);
    expect(new Set(seen.map((e) => e.code))).toEqual(new Set(['RECEIVED', 'UPDATE']));
    expect(seen.find((e) => e.code === 'RECEIVED')!.fundsReceivedAt).not.toBeNull();
    for (const event of seen) expect(event.transfer.status).toBe('SENT');
  });

  it('alerts when an account becomes INACTIVE, with the current account', async () => {
    const gateway = await startGateway();
    const { browser } = await signedInUser(gateway);
    const events = await subscribe<{
      accountEvents: {
        code: string;
        becameInactive: boolean;
        updatedFields: string[];
        account: { status: string; reconnectUrl: string };
      };
    }>(
      gateway,
      socketClient(gateway, browser).client,
      'subscription { accountEvents { code becameInactive updatedFields account { status reconnectUrl } } }',
      'ACCOUNT',
    );
    const everyday = gateway.sandbox.world().accounts.find((account) => account.name === 'Everyday')!;
    gateway.sandbox.setAccountStatus(everyday._id, 'INACTIVE');
    expect((await events.next()).data!.accountEvents).toMatchObject({
      code: 'UPDATE',
      becameInactive: true,
      updatedFields: ['status'],
      account: { status: 'INACTIVE', reconnectUrl: expect.stringContaining('/auth/consumer-info') },
    });
  });
});

describe('graphql-ws protocol rules', () => {
  it('closes with 4408 when no connection_init arrives in time', async () => {
    const gateway = await startGateway({ WS_HANDSHAKE_TIMEOUT_MS: '200' });
    const { browser } = await signedInUser(gateway);
    const cookie = sessionCookie(browser, gateway.url);
    const { closed } = rawSocket(gateway, { origin: gateway.url, cookie });
    expect((await closed).code).toBe(4408);
  });

  it('closes an unauthenticated connection with 4403', async () => {
    const gateway = await startGateway();
    const { socket, opened, closed } = rawSocket(gateway, { origin: gateway.url });
    await opened;
    socket.send(JSON.stringify({ type: 'connection_init' }));
    expect((await closed).code).toBe(4403);
  });

  it('refuses a foreign Origin at the upgrade', async () => {
    const gateway = await startGateway();
    const { browser } = await signedInUser(gateway);
    const cookie = sessionCookie(browser, gateway.url);
    expect(await rawSocket(gateway, { origin: 'https://evil.example', cookie }).refused).toBe(403);
  });

  it('accepts a client that sends no Origin (not a browser: browsers always send one), with its session', async () => {
    const gateway = await startGateway();
    const { browser } = await signedInUser(gateway);
    const cookie = sessionCookie(browser, gateway.url);
    const { socket, opened } = rawSocket(gateway, { cookie });
    await opened;
    socket.send(JSON.stringify({ type: 'connection_init' }));
    const [ack] = (await once(socket, 'message')) as [Buffer];
    expect(JSON.parse(String(ack))).toEqual({ type: 'connection_ack' });
  });

  it('applies the HTTP limits and masking on the socket', async () => {
    const gateway = await startGateway({ GRAPHQL_MAX_DEPTH: '3', GRAPHQL_INTROSPECTION: 'false' });
    const { browser } = await signedInUser(gateway);
    const { client } = socketClient(gateway, browser);
    const run = (query: string) => client.iterate({ query }).next();
    const deep = await run('subscription { accountEvents { account { connection { name } } } }').catch(
      (errors: unknown) => errors,
    );
    expect(JSON.stringify(deep)).toContain('exceeds the limit of 3');
    const introspection = await run('{ __schema { types { name } } }').catch((errors: unknown) => errors);
    expect(JSON.stringify(introspection)).toContain('GraphQL introspection');
  });
});
