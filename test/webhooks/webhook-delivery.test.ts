import { createServer } from 'node:net';
import { describe, expect, it } from 'vitest';
import { MeDocument, RefreshDocument } from '../__generated__/graphql.js';
import { execute, startGateway, type TestGateway } from '../support/gateway.js';
import { signedInUser } from '../support/webhooks.js';

function republishedFor(gateway: TestGateway, type: string, code: string) {
  return gateway.waitForEvent('webhook-published', (event) => event.type === type && event.code === code);
}

async function appEvents(gateway: TestGateway, status?: string) {
  const { appToken, appSecret } = gateway.sandbox.credentials;
  const response = await fetch(`${gateway.sandbox.coreUrl}/v1/webhook-events${status ? `?status=${status}` : ''}`, {
    headers: { authorization: `Basic ${Buffer.from(`${appToken}:${appSecret}`).toString('base64')}` },
  });
  return ((await response.json()) as { items: Array<{ status: string; payload: Record<string, unknown> }> }).items;
}

/** A port with nothing listening: deliveries to it fail at once. */
async function deadPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

describe('sandbox webhook delivery', () => {
  it('delivers a signed payment update that the gateway verifies and republishes, and logs it as SENT', async () => {
    const gateway = await startGateway();
    const { userId } = await signedInUser(gateway);
    const payment = gateway.sandbox.payments.createPayment(userId, { amount: 42 });
    await republishedFor(gateway, 'PAYMENT', 'UPDATE');
    // The gateway publishes before its 200 reaches the sandbox, which logs the event SENT only then.
    await gateway.sandbox.deliveries.waitFor(
      (record) => record.payload.item_id === payment._id && record.status === 'SENT',
    );
    const events = await appEvents(gateway, 'SENT');
    expect(events.map((event) => event.payload)).toEqual([
      expect.objectContaining({
        webhook_type: 'PAYMENT',
        webhook_code: 'UPDATE',
        item_id: payment._id,
        status: 'READY',
      }),
    ]);
  });

  it('retries while the gateway is unreachable, then delivers', async () => {
    const gateway = await startGateway({ SANDBOX_WEBHOOK_TIME_SCALE: '36000' }); // hourly → every 100 ms
    const { userId } = await signedInUser(gateway);
    const working = `${gateway.app.listenUrl}/webhooks`;
    gateway.sandbox.setWebhookUrl(`http://127.0.0.1:${await deadPort()}/webhooks`);

    gateway.sandbox.payments.createPayment(userId, { amount: 10 });
    const record = gateway.sandbox.deliveries.events.at(-1)!;
    await gateway.sandbox.deliveries.waitFor((r) => r === record && r.status === 'RETRY');
    expect(await appEvents(gateway, 'RETRY')).toHaveLength(1);

    gateway.sandbox.setWebhookUrl(working);
    await gateway.sandbox.deliveries.waitFor((r) => r === record && r.status === 'SENT');
    await republishedFor(gateway, 'PAYMENT', 'UPDATE');
    expect(record.attempts).toBeGreaterThanOrEqual(2);
  });

  it('stops retrying once the subscription is deleted', async () => {
    const gateway = await startGateway({ SANDBOX_WEBHOOK_TIME_SCALE: '36000' });
    const { userId } = await signedInUser(gateway);
    gateway.sandbox.setWebhookUrl(`http://127.0.0.1:${await deadPort()}/webhooks`);
    gateway.sandbox.payments.createPayment(userId, { amount: 10 });
    const record = gateway.sandbox.deliveries.events.at(-1)!;
    const token = gateway.sandbox.issuedTokens().at(-1)!;
    const deleted = await fetch(`${gateway.sandbox.coreUrl}/v1/webhooks/${record._hook}`, {
      method: 'DELETE',
      headers: { authorization: `Bearer ${token}`, 'x-service-id': gateway.sandbox.credentials.appToken },
    });
    expect(deleted.status).toBe(200);
    await gateway.sandbox.deliveries.waitFor((r) => r === record && r.status === 'FAILED');
    expect(record.attempts).toBe(1);
  });

  it('emits account and transaction updates after a refresh, an account update when an account turns INACTIVE, and TOKEN DELETE on external revocation', async () => {
    const gateway = await startGateway();
    const { browser, userId, appUser } = await signedInUser(gateway);
    const everyday = gateway.sandbox.world().accounts.find((account) => account.name === 'Everyday')!;
    await execute(gateway, browser, RefreshDocument, { accountId: everyday._id });
    await republishedFor(gateway, 'TRANSACTION', 'DEFAULT_UPDATE');
    await republishedFor(gateway, 'ACCOUNT', 'UPDATE');

    gateway.sandbox.setAccountStatus(everyday._id, 'INACTIVE');
    const statusChange = await gateway.sandbox.deliveries.waitFor(
      (r) => r.status === 'SENT' && JSON.stringify(r.payload.updated_fields) === '["status"]',
    );
    expect(statusChange.payload).toMatchObject({
      webhook_type: 'ACCOUNT',
      webhook_code: 'UPDATE',
      item_id: everyday._id,
    });

    gateway.sandbox.revokeUserTokens(userId);
    await gateway.waitForEvent('user-data-deleted', (event) => event.userId === appUser);
    expect((await execute(gateway, browser, MeDocument)).status).toBe(401);
    const cancelled = (await appEvents(gateway)).filter((event) => event.payload.webhook_code === 'WEBHOOK_CANCELLED');
    expect(cancelled.map((event) => String(event.payload.webhook_type)).sort()).toEqual([
      'ACCOUNT',
      'INCOME',
      'PAYMENT',
      'TRANSACTION',
      'TRANSFER',
    ]);
  });
});
