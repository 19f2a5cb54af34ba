import { describe, expect, it } from 'vitest';
import { WEBHOOK_EVENTS, WEBHOOK_TYPES } from '@open-finance-gateway/common/webhook-events';
import { sdkAgainstSandbox, signedIn, webhookReceiver, type SdkSetup } from '../support/sdk.js';

/** Subscribes the user to every webhook type through the SDK, as an app would. */
async function subscribedUser(setup: SdkSetup) {
  const token = await signedIn(setup);
  const userId = (await setup.akahu.users.get(token))._id;
  for (const type of WEBHOOK_TYPES)
    await setup.akahu.webhooks.subscribe(token, { webhook_type: type as 'PAYMENT', state: `state-${type}` });
  return { token, userId };
}

async function control(setup: SdkSetup, method: string, path: string, body?: unknown) {
  const response = await fetch(`${setup.sandbox.coreUrl}${path}`, {
    method,
    headers: { 'content-type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  return { status: response.status, body: (await response.json()) as Record<string, unknown> };
}

/** Waits until the sandbox has delivered (200) an event matching type and code, and returns its payload. */
async function delivered(setup: SdkSetup, type: string, code: string) {
  const record = await setup.sandbox.deliveries.waitFor(
    (event) => event.status === 'SENT' && event.payload.webhook_type === type && event.payload.webhook_code === code,
  );
  return record.payload;
}

describe('the sandbox\u2019s webhook engine', () => {
  it('fires every type and code of the platform\u2019s table on request, signed as the platform signs', async () => {
    const receiver = await webhookReceiver();
    const setup = await sdkAgainstSandbox({ webhookUrl: receiver.url });
    const { userId } = await subscribedUser(setup);
    const pairs = WEBHOOK_TYPES.flatMap((type) => WEBHOOK_EVENTS[type].codes.map((code) => [type, code] as const));
    for (const [type, code] of pairs) {
      const fired = await control(setup, 'POST', '/sandbox/webhooks/fire', {
        user: userId,
        webhook_type: type,
        webhook_code: code,
      });
      expect(fired, `${type} ${code}`).toMatchObject({ status: 200, body: { deliveries: 1 } });
      expect(await delivered(setup, type, code)).toMatchObject({ state: `state-${type}`, item_id: expect.any(String) });
    }
    expect(receiver.received).toHaveLength(pairs.length);
    // Each one validates with the platform's own SDK.
    for (const delivery of receiver.received) {
      const payload = await setup.akahu.webhooks.validateWebhook(
        String(delivery.headers['x-akahu-signing-key']),
        String(delivery.headers['x-akahu-signature']),
        delivery.body,
      );
      expect(pairs).toContainEqual([payload.webhook_type, payload.webhook_code]);
    }
    const unknown = await control(setup, 'POST', '/sandbox/webhooks/fire', {
      user: userId,
      webhook_type: 'PAYMENT',
      webhook_code: 'CREATE',
    });
    expect(unknown.status).toBe(400);
    expect(unknown.body.message).toContain('PAYMENT UPDATE|RECEIVED|WEBHOOK_CANCELLED');
  });

  it('announces changes at the platform with the webhooks the live platform sends for them', async () => {
    const receiver = await webhookReceiver();
    const setup = await sdkAgainstSandbox({ webhookUrl: receiver.url });
    const { akahu, sandbox } = setup;
    const { token, userId } = await subscribedUser(setup);

    const connected = await control(setup, 'POST', `/sandbox/users/${userId}/accounts`, { name: 'Rates' });
    const accountId = connected.body.item_id as string;
    expect(await delivered(setup, 'ACCOUNT', 'CREATE')).toMatchObject({ item_id: accountId });
    const initial = await delivered(setup, 'TRANSACTION', 'INITIAL_UPDATE');
    expect(initial).toMatchObject({ item_id: accountId, new_transactions: 5 });
    const rows = await akahu.transactions.getMany(token, initial.new_transaction_ids as string[]);
    expect(rows.map((row) => row._account)).toEqual(Array(5).fill(accountId));

    await control(setup, 'DELETE', `/sandbox/transactions/${rows[0]!._id}`);
    expect(await delivered(setup, 'TRANSACTION', 'DELETE')).toMatchObject({
      item_id: accountId,
      removed_transactions: [rows[0]!._id],
    });
    await control(setup, 'DELETE', `/sandbox/accounts/${accountId}`);
    expect(await delivered(setup, 'ACCOUNT', 'DELETE')).toMatchObject({ item_id: accountId });
    await expect(akahu.accounts.get(token, accountId)).rejects.toMatchObject({ status: 404 });

    for (const code of ['CREATE', 'UPDATE', 'DELETE']) {
      expect((await control(setup, 'POST', `/sandbox/users/${userId}/income`, { code })).status).toBe(200);
      expect(await delivered(setup, 'INCOME', code)).toMatchObject({ item_id: expect.stringMatching(/^income_/) });
    }

    // A payment to an account the platform also knows (here: another demo user's) is RECEIVED there.
    const payee = sandbox
      .world()
      .accounts.find((account) => account.sandboxUserId !== userId && /^\d{2}-/.test(account.formatted_account))!;
    const from = sandbox
      .world()
      .accounts.find((a) => a.sandboxUserId === userId && a.attributes.includes('PAYMENT_FROM'))!;
    const payment = await akahu.payments.create(token, {
      from: from._id,
      amount: 15,
      to: { name: payee.meta.holder, account_number: payee.formatted_account },
    });
    expect(await delivered(setup, 'PAYMENT', 'RECEIVED')).toMatchObject({
      item_id: payment._id,
      received_at: expect.any(String),
    });
  });

  it('retries a failing endpoint and, on the scaled clock, disables the URL after 2 days of failures, failing its events', async () => {
    // Hourly retries at 1; a scale of 360,000 makes them 10 ms apart, 2 days 480 ms and 3 days 720 ms.
    const receiver = await webhookReceiver(500);
    const setup = await sdkAgainstSandbox({ webhookUrl: receiver.url, webhookTimeScale: 360_000 });
    const { userId } = await subscribedUser(setup);
    const started = Date.now();
    await control(setup, 'POST', '/sandbox/webhooks/fire', {
      user: userId,
      webhook_type: 'TOKEN',
      webhook_code: 'DELETE',
    });
    const failed = await setup.sandbox.deliveries.waitFor((event) => event.status === 'FAILED');
    const elapsed = Date.now() - started;
    expect(setup.sandbox.deliveries.isDisabled).toBe(true);
    // Given up at the 2-day disable point (scaled), after many retries, not after three real days.
    expect(elapsed).toBeGreaterThanOrEqual(480);
    expect(elapsed).toBeLessThan(10_000);
    expect(failed.attempts).toBeGreaterThan(5);
    expect(receiver.received.length).toBe(failed.attempts);
    // While disabled, new events fail at once without a call.
    await control(setup, 'POST', '/sandbox/webhooks/fire', {
      user: userId,
      webhook_type: 'TOKEN',
      webhook_code: 'DELETE',
    });
    const next = await setup.sandbox.deliveries.waitFor((event) => event.status === 'FAILED' && event !== failed);
    expect(next.attempts).toBe(0);
    expect(receiver.received.length).toBe(failed.attempts);
  });

  it('gives up on an event after the 3-day retry horizon (scaled) while the endpoint still takes others', async () => {
    // TOKEN events fail, everything else is taken: the URL stays enabled, the TOKEN event expires.
    const receiver = await webhookReceiver((body) => (body.includes('"TOKEN"') ? 500 : 200));
    const setup = await sdkAgainstSandbox({ webhookUrl: receiver.url, webhookTimeScale: 360_000 });
    const { userId } = await subscribedUser(setup);
    const fire = (type: string, code: string) =>
      control(setup, 'POST', '/sandbox/webhooks/fire', { user: userId, webhook_type: type, webhook_code: code });
    // Successes every 100 ms (8 scaled hours) keep the 2-day disable window from ever filling.
    const keepAlive = setInterval(() => void fire('ACCOUNT', 'UPDATE').catch(() => undefined), 100);
    try {
      const started = Date.now();
      await fire('TOKEN', 'DELETE');
      const expired = await setup.sandbox.deliveries.waitFor(
        (event) => event.status === 'FAILED' && event.payload.webhook_type === 'TOKEN',
      );
      expect(Date.now() - started).toBeGreaterThanOrEqual(720);
      expect(expired.attempts).toBeGreaterThan(10);
      expect(setup.sandbox.deliveries.isDisabled).toBe(false);
    } finally {
      clearInterval(keepAlive);
    }
  });
});
