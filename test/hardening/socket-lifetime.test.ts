import { describe, expect, it } from 'vitest';
import { MeDocument } from '../__generated__/graphql.js';
import { execute, startGateway } from '../support/gateway.js';
import { socketClient, subscribe } from '../support/sockets.js';
import { deliver, signedHeaders, signedInUser } from '../support/webhooks.js';

const PAYMENT_UPDATED = 'subscription { paymentUpdated { code paymentId payment { id status } } }';

/** A clock that follows real time and can jump ahead, as a lapse of time would look to the gateway. */
function jumpingClock() {
  let offset = 0;
  return { now: () => Date.now() + offset, jump: (ms: number) => (offset += ms) };
}

describe('sockets do not outlive their session', () => {
  for (const [setting, lapse] of [
    ['SESSION_MAX_AGE_SECONDS', 'absolute'],
    ['SESSION_IDLE_TIMEOUT_SECONDS', 'idle'],
  ] as const) {
    it(`closes a socket with 4401 when the session's ${lapse} lifetime passes`, async () => {
      const clock = jumpingClock();
      const gateway = await startGateway({ [setting]: '60' }, { clock: clock.now, sessionRecheckMs: 100 });
      const { browser } = await signedInUser(gateway);
      const { client, closed } = socketClient(gateway, browser);
      await subscribe(gateway, client, PAYMENT_UPDATED, 'PAYMENT');

      clock.jump(61_000);
      expect((await closed).code).toBe(4401);
      expect((await execute(gateway, browser, MeDocument)).status).toBe(401);
    });
  }

  it('uses no token for an event that arrives after the session lapsed, and closes the socket', async () => {
    const clock = jumpingClock();
    // The periodic re-check is far away: only the per-event check can notice.
    const gateway = await startGateway(
      { SESSION_MAX_AGE_SECONDS: '60' },
      { clock: clock.now, sessionRecheckMs: 3_600_000 },
    );
    const { browser, state } = await signedInUser(gateway);
    const { client, closed } = socketClient(gateway, browser);
    await subscribe(gateway, client, PAYMENT_UPDATED, 'PAYMENT');

    clock.jump(61_000);
    const body = JSON.stringify({
      webhook_type: 'PAYMENT',
      webhook_code: 'UPDATE',
      state,
      item_id: 'payment_late',
      status: 'SENT',
    });
    expect((await deliver(gateway, body, signedHeaders(gateway, body))).status).toBe(200);
    expect((await closed).code).toBe(4401);
    expect(gateway.sandbox.requests({ method: 'GET', path: '/v1/payments/payment_late' })).toHaveLength(0);
  });
});
