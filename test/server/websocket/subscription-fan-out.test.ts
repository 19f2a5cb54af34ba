import { once } from 'node:events';
import { describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { TransactionsDocument } from '../../__generated__/graphql.js';
import { execute, startGateway } from '../../support/gateway.js';
import { track } from '../../support/leftovers.js';
import { sessionCookie } from '../../support/session-cookie.js';
import { wsUrl } from '../../support/sockets.js';
import { deliver, signedHeaders, signedInUser } from '../../support/webhooks.js';

const SOCKETS = 1_000;
const QUERY = 'subscription { transactionEvents { code newTransactions { id description enrichment { id } } } }';

/** A bare graphql-transport-ws socket (a graphql-ws client per socket would weigh more than the gateway's side). */
async function rawSubscriber(
  url: string,
  origin: string,
  cookie: string,
  onFrame: (frame: string) => void,
): Promise<WebSocket> {
  const socket = new WebSocket(url, 'graphql-transport-ws', { headers: { origin, cookie } });
  track(() => socket.terminate());
  await once(socket, 'open');
  socket.send(JSON.stringify({ type: 'connection_init' }));
  await once(socket, 'message');
  socket.on('message', (data) => onFrame(String(data)));
  socket.send(JSON.stringify({ id: '1', type: 'subscribe', payload: { query: QUERY } }));
  return socket;
}

describe('one event to many identical subscriptions of one user', () => {
  it('executes once: 1,000 sockets cost one platform read and one enrichment batch, and get 1,000 equal frames', async () => {
    const limits = { WS_MAX_SOCKETS_PER_USER: String(SOCKETS), WS_MAX_SOCKETS_PER_SESSION: String(SOCKETS) };
    // The user-data store on: the webhook's read by id fills the ledger the executions read from.
    const gateway = await startGateway({ ...limits, USER_DATA_STORE: 'memory' });
    const { browser, state } = await signedInUser(gateway);
    const cookie = sessionCookie(browser, gateway.url);
    const rows = (await execute(gateway, browser, TransactionsDocument, { first: 3 })).data!.transactions.edges.map(
      (edge) => edge.node,
    );

    const allStarted = gateway.subscriptionsStarted(SOCKETS);
    const frames: string[] = [];
    let allArrived!: () => void;
    const everyone = new Promise<void>((resolve) => (allArrived = resolve));
    const onFrame = (frame: string) => {
      frames.push(frame);
      if (frames.length === SOCKETS) allArrived();
    };
    for (let n = 0; n < SOCKETS; n += 50) {
      await Promise.all(
        Array.from({ length: Math.min(50, SOCKETS - n) }, () =>
          rawSubscriber(wsUrl(gateway), gateway.url, cookie, onFrame),
        ),
      );
    }
    await allStarted;

    const reads = () => gateway.sandbox.requests({ method: 'POST', path: '/v1/transactions/ids' }).length;
    const searches = () => gateway.sandbox.requests({ method: 'POST', path: '/v1/search' }).length;
    const [readsBefore, searchesBefore] = [reads(), searches()];
    const body = JSON.stringify({
      webhook_type: 'TRANSACTION',
      webhook_code: 'DEFAULT_UPDATE',
      state,
      item_id: rows[0]!.accountId,
      new_transactions: rows.length,
      new_transaction_ids: rows.map((row) => row.id),
    });
    expect((await deliver(gateway, body, signedHeaders(gateway, body))).status).toBe(200);

    await everyone;
    expect(frames).toHaveLength(SOCKETS);
    const payloads = new Set(
      frames.map((frame) => JSON.stringify((JSON.parse(frame) as { payload: unknown }).payload)),
    );
    expect(payloads.size).toBe(1);
    const [payload] = [...payloads].map(
      (text) =>
        JSON.parse(text) as {
          data: { transactionEvents: { newTransactions: Array<{ id: string; enrichment: unknown }> } };
          errors?: unknown;
        },
    );
    expect(payload!.errors).toBeUndefined();
    expect(payload!.data.transactionEvents.newTransactions.map((row) => row.id)).toEqual(rows.map((row) => row.id));
    expect(reads() - readsBefore).toBe(1);
    expect(searches() - searchesBefore).toBeLessThanOrEqual(1);
  }, 120_000);
});
