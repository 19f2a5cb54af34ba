import { describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { signIn, startGateway } from '../support/gateway.js';
import { track } from '../support/leftovers.js';
import { sessionCookie } from '../support/session-cookie.js';
import { socketClient, subscribe, wsUrl } from '../support/sockets.js';
import { deliver, signedHeaders, signedInUser } from '../support/webhooks.js';

const INCOME = 'subscription { incomeEvents { code incomeId newTransactionIds } }';

describe('caps on sockets and subscriptions', () => {
  it('refuses a subscription beyond WS_MAX_SUBSCRIPTIONS_PER_SOCKET with a coded error on that operation', async () => {
    const gateway = await startGateway({ WS_MAX_SUBSCRIPTIONS_PER_SOCKET: '3' });
    const { browser } = await signedInUser(gateway);
    const { client } = socketClient(gateway, browser);
    for (let index = 0; index < 3; index += 1) await subscribe(gateway, client, INCOME, 'INCOME');
    const refused = await new Promise<unknown>((resolve) =>
      client.subscribe(
        { query: INCOME },
        { next: () => undefined, error: resolve, complete: () => resolve('completed') },
      ),
    );
    expect(refused).toEqual([expect.objectContaining({ extensions: { code: 'LIMIT_EXCEEDED', limit: 3 } })]);
  });

  it('closes sockets beyond the per-session and per-user caps with 4429', async () => {
    const gateway = await startGateway({ WS_MAX_SOCKETS_PER_SESSION: '2', WS_MAX_SOCKETS_PER_USER: '3' });
    const first = await signIn(gateway);
    const second = await signIn(gateway);
    const open = async (browser: typeof first) => {
      const socket = socketClient(gateway, browser);
      const outcome = await Promise.race([
        socket.closed.then((event) => event.code),
        subscribe(gateway, socket.client, INCOME, 'INCOME').then(() => 'open' as const),
      ]);
      return outcome;
    };
    expect(await open(first)).toBe('open');
    expect(await open(first)).toBe('open');
    expect(await open(first)).toBe(4429); // session cap
    expect(await open(second)).toBe('open');
    expect(await open(second)).toBe(4429); // user cap: 3 sockets across the user's sessions
  });

  it('cuts a socket whose client stops reading once its unsent data passes WS_MAX_BUFFERED_BYTES', async () => {
    const gateway = await startGateway({ WS_MAX_BUFFERED_BYTES: '65536' });
    const { browser, state } = await signedInUser(gateway);
    const cookie = sessionCookie(browser, gateway.url);
    const socket = new WebSocket(wsUrl(gateway), 'graphql-transport-ws', {
      headers: { origin: gateway.url, cookie },
    });
    track(() => socket.terminate());
    socket.on('error', () => undefined);
    const closed = new Promise<number>((resolve) => socket.once('close', (code) => resolve(code)));
    await new Promise((resolve) => socket.once('open', resolve));
    socket.send(JSON.stringify({ type: 'connection_init' }));
    await new Promise((resolve) => socket.once('message', resolve));
    const started = gateway.subscriptionsStarted(5);
    for (let id = 0; id < 5; id += 1)
      socket.send(JSON.stringify({ id: String(id), type: 'subscribe', payload: { query: INCOME } }));
    await started;

    // The client stops reading; each webhook makes five frames of about 60 KB.
    (socket as unknown as { _socket: { pause(): void; resume(): void } })._socket.pause();
    const ids = Array.from({ length: 2_000 }, (_, index) => `trans_${String(index).padStart(18, '0')}`);
    let delivered = 0;
    for (let round = 0; round < 120 && gateway.events('socket-cut').length === 0; round += 1) {
      const body = JSON.stringify({
        webhook_type: 'INCOME',
        webhook_code: 'UPDATE',
        state,
        item_id: `income_${round}`,
        new_transaction_ids: ids,
      });
      expect((await deliver(gateway, body, signedHeaders(gateway, body))).status).toBe(200);
      delivered += 1;
    }
    (socket as unknown as { _socket: { resume(): void } })._socket.resume();
    // Cut, not closed politely: no close frame could get through to a client that does not read.
    expect(await closed).toBe(1006);
    expect(delivered).toBeLessThan(120);
    expect(gateway.events('socket-cut')).toEqual([{ reason: 'slow-reader' }]);
  });
});
