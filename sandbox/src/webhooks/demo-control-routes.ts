import { sendJson } from '@open-finance-gateway/common/http/respond';
import type { DemoWorld } from '../data/demo-world.js';
import { parseBody, platformError, type SandboxRouter } from '../sandbox-http.js';
import type { DeliveryEngine } from './delivery-engine.js';
import type { PaymentControls } from './payment-controls.js';
import type { SigningKeys } from './signing-keys.js';

/** What the demo controls move: the signing keys, payments and transfers, and their deliveries. */
export interface DemoControlled {
  signingKeys: SigningKeys;
  payments: PaymentControls;
  deliveries: DeliveryEngine;
  world(): DemoWorld;
}

/**
 * Sandbox-only controls to watch webhooks in a demo: rotate the signing key, run a payment or a
 * transfer from READY to SENT (optionally delivered out of order), or move one step at a time.
 */
export function registerDemoControlRoutes(router: SandboxRouter, sandbox: DemoControlled): void {
  router.on('POST', '/sandbox/keys/rotate', ({ res }) =>
    sendJson(res, 200, { success: true, key_id: sandbox.signingKeys.rotate() }),
  );

  router.on('POST', '/sandbox/payments', (request) => {
    const body = (parseBody(request) ?? {}) as {
      user?: unknown;
      amount?: unknown;
      out_of_order?: unknown;
      run?: unknown;
    };
    if (typeof body.user !== 'string' || !sandbox.world().users.some((u) => u._id === body.user))
      return platformError(request, 400, 'user must be a sandbox user id');
    const amount = typeof body.amount === 'number' && body.amount > 0 ? body.amount : 25;
    const run = () => {
      const payment = sandbox.payments.createPayment(body.user as string, { amount });
      if (body.run !== false) sandbox.payments.advancePayment(payment._id, { status: 'SENT' });
      return payment;
    };
    let payment;
    if (body.out_of_order === true) sandbox.deliveries.deliverOutOfOrder(() => (payment = run()));
    else payment = run();
    sendJson(request.res, 200, { success: true, item_id: payment!._id });
  });

  router.on('POST', '/sandbox/payments/:id/status', (request) => {
    const body = (parseBody(request) ?? {}) as { status?: unknown; status_code?: unknown; status_text?: unknown };
    if (typeof body.status !== 'string') return platformError(request, 400, 'status is required');
    if (!sandbox.payments.payments.has(request.params.id!)) return platformError(request, 404, 'Not found');
    sandbox.payments.advancePayment(request.params.id!, {
      status: body.status,
      statusCode: body.status_code as string | undefined,
      statusText: body.status_text as string | undefined,
    });
    sendJson(request.res, 200, { success: true });
  });

  router.on('POST', '/sandbox/transfers', (request) => {
    const body = (parseBody(request) ?? {}) as { user?: unknown; amount?: unknown };
    if (typeof body.user !== 'string' || !sandbox.world().users.some((u) => u._id === body.user))
      return platformError(request, 400, 'user must be a sandbox user id');
    const transfer = sandbox.payments.createTransfer(
      body.user,
      typeof body.amount === 'number' && body.amount > 0 ? body.amount : 100,
    );
    sandbox.payments.advanceTransfer(transfer._id, { status: 'SENT' });
    sandbox.payments.markTransferReceived(transfer._id);
    sendJson(request.res, 200, { success: true, item_id: transfer._id });
  });
}
