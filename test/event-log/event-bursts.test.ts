import { describe, expect, it } from 'vitest';
import type { LoggedEvent } from '../../src/event-log/event-log.js';
import { EventsDroppedError, SubscriptionQueue } from '../../src/event-log/subscription-queue.js';
import { startGateway } from '../support/gateway.js';
import { socketClient } from '../support/sockets.js';
import { deliver, signedHeaders, signedInUser } from '../support/webhooks.js';

const STATUSES = [
  'READY',
  'PENDING_APPROVAL',
  'PAUSED',
  'READY',
  'PENDING_APPROVAL',
  'PAUSED',
  'READY',
  'PENDING_APPROVAL',
  'PAUSED',
  'SENT',
];

function logged(n: number, type: string, code: string, payload: Record<string, unknown>): LoggedEvent {
  return { type, code, payload, receivedAt: new Date().toISOString(), cursor: `1700000000000-${n}` };
}

describe('bursts coalesce, and nothing is dropped silently', () => {
  it('keeps only the newest pending event per payment, transfer or account, never folding transaction events', async () => {
    const queue = new SubscriptionQueue(100, () => undefined);
    let n = 0;
    for (const status of STATUSES)
      for (let p = 0; p < 25; p += 1) queue.push(logged(n++, 'PAYMENT', 'UPDATE', { item_id: `payment_${p}`, status }));
    queue.push(logged(n++, 'ACCOUNT', 'UPDATE', { item_id: 'acc_1', updated_fields: ['balance'] }));
    queue.push(logged(n++, 'ACCOUNT', 'UPDATE', { item_id: 'acc_1', updated_fields: ['status'] }));
    queue.push(logged(n++, 'TRANSACTION', 'DEFAULT_UPDATE', { item_id: 'acc_1', new_transaction_ids: ['trans_a'] }));
    queue.push(logged(n++, 'TRANSACTION', 'DEFAULT_UPDATE', { item_id: 'acc_1', new_transaction_ids: ['trans_b'] }));
    queue.end();
    const out: LoggedEvent[] = [];
    for await (const event of queue) out.push(event);
    expect(out.filter((event) => event.type === 'PAYMENT').map((event) => event.payload.status)).toEqual(
      Array(25).fill('SENT'),
    );
    expect(out.filter((event) => event.type === 'ACCOUNT').map((event) => event.payload.updated_fields)).toEqual([
      ['balance', 'status'],
    ]);
    expect(
      out.filter((event) => event.type === 'TRANSACTION').map((event) => event.payload.new_transaction_ids),
    ).toEqual([['trans_a'], ['trans_b']]);
    expect(queue.merged).toEqual(225 + 1);
  });

  it('ends the subscription with the cursor to resume from when more distinct objects are pending than it holds', async () => {
    const queue = new SubscriptionQueue(3, () => undefined);
    queue.push(logged(1, 'PAYMENT', 'UPDATE', { item_id: 'payment_1' }));
    expect((await queue.next()).value.cursor).toBe('1700000000000-1');
    for (let n = 2; n <= 5; n += 1) queue.push(logged(n, 'PAYMENT', 'UPDATE', { item_id: `payment_${n}` }));
    const failure = await queue.next().catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(EventsDroppedError);
    expect((failure as EventsDroppedError).cursor).toBe('1700000000000-1');
  });

  it('hands out cursors only in increasing order when a pending event is replaced by a newer one', async () => {
    const queue = new SubscriptionQueue(100, () => undefined);
    queue.push(logged(1, 'PAYMENT', 'UPDATE', { item_id: 'payment_1', status: 'PENDING' }));
    queue.push(logged(2, 'PAYMENT', 'UPDATE', { item_id: 'payment_2', status: 'PENDING' }));
    queue.push(logged(3, 'PAYMENT', 'UPDATE', { item_id: 'payment_1', status: 'SENT' }));
    queue.end();
    const out: LoggedEvent[] = [];
    for await (const event of queue) out.push(event);
    // A client resuming after the last cursor it got must not be given an event again.
    expect(out.map((event) => event.cursor)).toEqual(['1700000000000-2', '1700000000000-3']);
  });

  it('never hands a resumed subscriber an event at or before the cursor it resumed after', async () => {
    const queue = new SubscriptionQueue(100, () => undefined, '1700000000000-5');
    for (let n = 4; n <= 6; n += 1) queue.push(logged(n, 'PAYMENT', 'UPDATE', { item_id: `payment_${n}` }));
    queue.end();
    const out: LoggedEvent[] = [];
    for await (const event of queue) out.push(event);
    expect(out.map((event) => event.cursor)).toEqual(['1700000000000-6']);
  });

  it('brings 100 subscribers to the latest state of every object after a burst of 250 events, with one re-read per event', async () => {
    const gateway = await startGateway();
    const { browser, state } = await signedInUser(gateway);
    const allStarted = gateway.subscriptionsStarted(100);
    const latest: Array<Map<string, string>> = [];
    const finished: Array<Promise<void>> = [];
    const errors: unknown[] = [];
    for (let socket = 0; socket < 5; socket += 1) {
      const { client } = socketClient(gateway, browser);
      for (let subscription = 0; subscription < 20; subscription += 1) {
        const seen = new Map<string, string>();
        latest.push(seen);
        finished.push(
          new Promise<void>((resolve) =>
            client.subscribe<{ paymentUpdated: { paymentId: string; reportedStatus: string } }>(
              { query: 'subscription { paymentUpdated { paymentId reportedStatus } }' },
              {
                next: (result) => {
                  if (result.errors) errors.push(result.errors);
                  const event = result.data!.paymentUpdated;
                  seen.set(event.paymentId, event.reportedStatus);
                  if (event.paymentId === 'payment_end') resolve();
                },
                error: (error) => {
                  errors.push(error);
                  resolve();
                },
                complete: () => resolve(),
              },
            ),
          ),
        );
      }
    }
    await allStarted;

    // 25 payments at once, each through its ten statuses in order: 250 events in a burst, with a
    // known last status per payment.
    const burst: Array<{ id: string; status: string }> = [];
    for (const status of STATUSES) for (let p = 0; p < 25; p += 1) burst.push({ id: `payment_${p}`, status });
    await Promise.all(
      Array.from({ length: 25 }, async (_, p) => {
        for (const [index, status] of STATUSES.entries()) {
          const body = JSON.stringify({
            webhook_type: 'PAYMENT',
            webhook_code: 'UPDATE',
            state,
            item_id: `payment_${p}`,
            status,
            sequence: index,
          });
          expect((await deliver(gateway, body, signedHeaders(gateway, body))).status).toBe(200);
        }
      }),
    );
    const end = JSON.stringify({
      webhook_type: 'PAYMENT',
      webhook_code: 'UPDATE',
      state,
      item_id: 'payment_end',
      status: 'SENT',
    });
    expect((await deliver(gateway, end, signedHeaders(gateway, end))).status).toBe(200);
    await Promise.all(finished);

    expect(errors).toEqual([]);
    // One re-read per event per user: 100 subscriptions executed the last event with one GET.
    expect(gateway.sandbox.requests({ method: 'GET', path: '/v1/payments/payment_end' })).toHaveLength(1);
    const lastStatus = new Map(burst.map(({ id, status }) => [id, status]));
    for (const seen of latest) for (const [id, status] of lastStatus) expect(seen.get(id), id).toBe(status);
  }, 60_000);
});
