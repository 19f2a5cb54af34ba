import { describe, expect, it } from 'vitest';
import {
  CancelPaymentDocument,
  CreatePaymentDocument,
  CreateTransferDocument,
  PaymentsDocument,
  TransfersDocument,
  type CreatePaymentInput,
} from '../../__generated__/graphql.js';
import type { Browser } from '../../support/browser.js';
import { execute, startGateway, type TestGateway } from '../../support/gateway.js';
import { socketClient, subscribe } from '../../support/sockets.js';
import { signedInUser } from '../../support/webhooks.js';

const PAYMENT_EVENTS = 'subscription { paymentUpdated { code reportedStatus payment { id status final } } }';

async function payingUser(env: Record<string, string> = {}, paymentSettleMs = 50) {
  const gateway = await startGateway(env, { sandbox: { paymentSettleMs } });
  const { browser, userId } = await signedInUser(gateway);
  const own = gateway.sandbox.world().accounts.filter((account) => account.sandboxUserId === userId);
  const from = own.find((account) => account.attributes.includes('PAYMENT_FROM'))!;
  const order: CreatePaymentInput = {
    from: from._id,
    to: { name: 'Kiwi Plumbing Ltd', accountNumber: '12-3140-0412345-00' },
    amount: 120.5,
    payeeStatement: { particulars: 'invoice', code: 'INV-42', reference: 'flat 3' },
  };
  return { gateway, browser, userId, own, from, order };
}

function paymentPosts(gateway: TestGateway) {
  return gateway.sandbox.requests({ method: 'POST', path: '/v1/payments' });
}

async function pay(gateway: TestGateway, browser: Browser, input: CreatePaymentInput, idempotencyKey?: string) {
  return execute(gateway, browser, CreatePaymentDocument, { input, idempotencyKey });
}

describe('payments and transfers', () => {
  it('creates a payment and follows it live to SENT', async () => {
    // The test moves the payment on itself once READY was seen: a payment settling on its own
    // 50 ms later can reach a busy subscriber while READY still waits in its queue, where SENT
    // rightly replaces it (the events are signals to re-read), and READY is never shown.
    const { gateway, browser, order } = await payingUser({}, 3_600_000);
    const { client } = socketClient(gateway, browser);
    const events = await subscribe<{
      paymentUpdated: { code: string; reportedStatus: string; payment: { id: string; status: string; final: boolean } };
    }>(gateway, client, PAYMENT_EVENTS, 'PAYMENT');

    const created = await pay(gateway, browser, order);
    expect(created.errors).toBeUndefined();
    const payment = created.data!.createPayment.payment;
    expect(payment).toMatchObject({
      status: 'READY',
      final: false,
      amount: 120.5,
      toName: 'Kiwi Plumbing Ltd',
      payeeStatement: { particulars: 'invoice', code: 'INV-42', reference: 'flat 3' },
      reference: expect.stringMatching(/^akp/),
    });
    expect(created.data!.createPayment.replayed).toBe(false);
    // Sent with an Idempotency-Key, scoped to the user (not the key the client sees).
    const sentKey = paymentPosts(gateway)[0]!.headers['idempotency-key'];
    expect(sentKey).toEqual(expect.any(String));
    expect(sentKey).not.toBe(created.data!.createPayment.idempotencyKey);

    const seen: string[] = [];
    for (;;) {
      const event = (await events.next()).data!.paymentUpdated;
      expect(event.payment.id).toBe(payment.id);
      seen.push(event.reportedStatus);
      if (event.reportedStatus === 'READY') gateway.sandbox.payments.advancePayment(payment.id, { status: 'SENT' });
      if (event.payment.final) {
        expect(event.payment.status).toBe('SENT');
        break;
      }
    }
    expect(seen).toEqual(['READY', 'SENT']);
    const listed = await execute(gateway, browser, PaymentsDocument);
    expect(listed.data!.payments.map((p) => [p.id, p.status])).toEqual([[payment.id, 'SENT']]);
    expect(listed.data!.payments[0]!.timeline.map((step) => step.status)).toEqual(['READY', 'SENT']);
  });

  it('replays a creation for the same key (the client\u2019s or the derived one) and refuses the key with another payment', async () => {
    const { gateway, browser, order } = await payingUser();
    const first = await pay(gateway, browser, order, 'order-7781');
    const again = await pay(gateway, browser, order, 'order-7781');
    expect(again.data!.createPayment).toMatchObject({ replayed: true, idempotencyKey: 'order-7781' });
    expect(again.data!.createPayment.payment.id).toBe(first.data!.createPayment.payment.id);

    const conflict = await pay(gateway, browser, { ...order, amount: 99 }, 'order-7781');
    expect(conflict.data).toBeNull();
    expect(conflict.errors![0]!.extensions).toMatchObject({
      code: 'IDEMPOTENCY_CONFLICT',
      idempotencyKey: 'order-7781',
    });

    // No key: the same input again (a double submit) is the same payment; another input is a new one.
    const tapped = await pay(gateway, browser, { ...order, amount: 33 });
    const doubleTapped = await pay(gateway, browser, { ...order, amount: 33 });
    expect(doubleTapped.data!.createPayment).toMatchObject({
      replayed: true,
      idempotencyKey: tapped.data!.createPayment.idempotencyKey,
    });
    expect(doubleTapped.data!.createPayment.payment.id).toBe(tapped.data!.createPayment.payment.id);
    const other = await pay(gateway, browser, { ...order, amount: 34 });
    expect(other.data!.createPayment.replayed).toBe(false);

    // Three payments at the platform for five creations.
    const amounts = [...gateway.sandbox.payments.payments.values()].map((p) => p.amount);
    expect(amounts.sort((a, b) => a - b)).toEqual([33, 34, 120.5]);
  });

  it('reports a lost answer as OUTCOME_UNKNOWN with the key, and the same key then tells what happened', async () => {
    const { gateway, browser, order } = await payingUser();
    // The platform creates the payment, then the connection is cut before its answer.
    gateway.sandbox.setCoreFault({ dropResponse: true, pathPrefix: '/v1/payments', times: 1 });
    const lost = await pay(gateway, browser, order);
    expect(lost.errors![0]!.extensions).toMatchObject({ code: 'OUTCOME_UNKNOWN', idempotencyKey: expect.any(String) });
    expect(paymentPosts(gateway)).toHaveLength(1); // never retried blindly
    const created = [...gateway.sandbox.payments.payments.values()];
    expect(created).toHaveLength(1);

    const resolved = await pay(gateway, browser, order, lost.errors![0]!.extensions!.idempotencyKey as string);
    expect(resolved.data!.createPayment).toMatchObject({ replayed: true, payment: { id: created[0]!._id } });

    // A 503 before the platform did anything: also unknown to the gateway, and the key then creates it once.
    gateway.sandbox.setCoreFault({ status: 503, pathPrefix: '/v1/payments', times: 1 });
    const refused = await pay(gateway, browser, { ...order, amount: 7 });
    const key = refused.errors![0]!.extensions!.idempotencyKey as string;
    expect(refused.errors![0]!.extensions!.code).toBe('OUTCOME_UNKNOWN');
    const retried = await pay(gateway, browser, { ...order, amount: 7 }, key);
    expect(retried.data!.createPayment.replayed).toBe(false);
    expect(gateway.sandbox.payments.payments.size).toBe(2);
  });

  it('refuses bad input with BAD_USER_INPUT: the gateway\u2019s own checks (no platform call) and the platform\u2019s reasons', async () => {
    const { gateway, browser, order, own } = await payingUser();
    const invalid = await pay(gateway, browser, {
      ...order,
      amount: 1.234,
      to: { name: ' ', accountNumber: '12345' },
      payeeStatement: { particulars: 'no*stars' },
    });
    expect(invalid.errors![0]!.extensions!.code).toBe('BAD_USER_INPUT');
    expect((invalid.errors![0]!.extensions!.problems as Array<{ field: string }>).map((p) => p.field)).toEqual([
      'amount',
      'to.name',
      'to.accountNumber',
      'payeeStatement.particulars',
    ]);
    expect(paymentPosts(gateway)).toHaveLength(0);

    const cannotPay = own.find((account) => !account.attributes.includes('PAYMENT_FROM'))!;
    const refused = await pay(gateway, browser, { ...order, from: cannotPay._id });
    expect(refused.errors![0]!.extensions).toMatchObject({
      code: 'BAD_USER_INPUT',
      reason: 'from account is unable to make payments',
    });
    const overLimit = await pay(gateway, browser, { ...order, amount: 10_000.5 });
    expect(overLimit.errors![0]!.extensions).toMatchObject({
      code: 'BAD_USER_INPUT',
      reason: 'Payment above app limit',
    });
  });

  it('cancels a payment that waits for approval, and says when it is too late', async () => {
    const { gateway, browser, order } = await payingUser();
    // The sandbox holds a payment whose cents are .42 for the user's approval.
    const created = await pay(gateway, browser, { ...order, amount: 50.42 });
    const id = created.data!.createPayment.payment.id;
    await gateway.sandbox.payments.waitForStatus(id, ['PENDING_APPROVAL']);
    const cancelled = await execute(gateway, browser, CancelPaymentDocument, { id });
    expect(cancelled.data!.cancelPayment).toMatchObject({
      id,
      status: 'CANCELLED',
      statusCode: 'APP_CANCELLED',
      final: true,
    });
    const tooLate = await execute(gateway, browser, CancelPaymentDocument, { id });
    expect(tooLate.errors![0]!.extensions!.code).toBe('BAD_USER_INPUT');
    expect(tooLate.errors![0]!.message).toContain('can no longer be cancelled');
  });

  it('transfers between the user\u2019s own accounts', async () => {
    const { gateway, browser, own } = await payingUser();
    const from = own.find((account) => account.attributes.includes('TRANSFER_FROM'))!;
    const to = own.find(
      (account) =>
        account !== from &&
        account.attributes.includes('TRANSFER_TO') &&
        account.connection._id === from.connection._id,
    )!;
    const created = await execute(gateway, browser, CreateTransferDocument, {
      input: { from: from._id, to: to._id, amount: 250 },
    });
    expect(created.data!.createTransfer.transfer).toMatchObject({
      status: 'READY',
      amount: 250,
      fromAccountId: from._id,
      toAccountId: to._id,
    });
    await gateway.sandbox.payments.waitForStatus(created.data!.createTransfer.transfer.id, ['SENT']);
    const listed = await execute(gateway, browser, TransfersDocument);
    expect(listed.data!.transfers).toEqual([
      { id: created.data!.createTransfer.transfer.id, status: 'SENT', amount: 250 },
    ]);
    const same = await execute(gateway, browser, CreateTransferDocument, {
      input: { from: from._id, to: from._id, amount: 1 },
    });
    expect(same.errors![0]!.extensions!.code).toBe('BAD_USER_INPUT');
  });
});
