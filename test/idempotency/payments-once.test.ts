import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { createLogger } from '@open-finance-gateway/common/logger';
import { CreatePaymentDocument, CreateTransferDocument, type CreatePaymentInput } from '../__generated__/graphql.js';
import { createApp } from '../../src/app.js';
import { loadConfig } from '../../src/config/config.js';
import { execute, startGateway, type TestGateway } from '../support/gateway.js';
import { deploymentEnv } from '../support/instances.js';
import { track } from '../support/leftovers.js';
import { REDIS_URL, testPrefix, tokenKeysSetting } from '../support/redis.js';
import { sessionCookieName, sessionCookieValue } from '../support/session-cookie.js';
import { signedInUser } from '../support/webhooks.js';

const CALLERS = 20;

async function payingUser(gateway: TestGateway) {
  const { browser, userId } = await signedInUser(gateway);
  const own = gateway.sandbox.world().accounts.filter((account) => account.sandboxUserId === userId);
  const from = own.find((account) => account.attributes.includes('PAYMENT_FROM'))!;
  const to = own.find((account) => account._id !== from._id)!;
  const order: CreatePaymentInput = {
    from: from._id,
    to: { name: 'Kiwi Plumbing Ltd', accountNumber: '12-3140-0412345-00' },
    amount: 42.5,
  };
  return { browser, from, to, order };
}

const posts = (gateway: TestGateway, path: string) => gateway.sandbox.requests({ method: 'POST', path });

describe('one platform call per idempotency key', () => {
  it(`sends ONE payment POST for ${CALLERS} concurrent createPayment calls with one key, and gives every caller its payment`, async () => {
    const gateway = await startGateway();
    const { browser, order } = await payingUser(gateway);
    const answers = await Promise.all(
      Array.from({ length: CALLERS }, () =>
        execute(gateway, browser, CreatePaymentDocument, { input: order, idempotencyKey: 'order-7' }),
      ),
    );
    expect(answers.map((answer) => answer.errors)).toEqual(answers.map(() => undefined));
    const ids = new Set(answers.map((answer) => answer.data!.createPayment.payment.id));
    expect(ids.size).toBe(1);
    expect(answers.filter((answer) => !answer.data!.createPayment.replayed)).toHaveLength(1);
    expect(posts(gateway, '/v1/payments')).toHaveLength(1);
    // Later, the same key answers from the record without posting again.
    const again = await execute(gateway, browser, CreatePaymentDocument, { input: order, idempotencyKey: 'order-7' });
    expect(again.data!.createPayment).toMatchObject({ payment: { id: [...ids][0] }, replayed: true });
    expect(posts(gateway, '/v1/payments')).toHaveLength(1);
  });

  it(`sends ONE transfer POST for ${CALLERS} concurrent createTransfer calls with the same input and no key`, async () => {
    const gateway = await startGateway();
    const { browser, from, to } = await payingUser(gateway);
    const input = { from: from._id, to: to._id, amount: 5 };
    const answers = await Promise.all(
      Array.from({ length: CALLERS }, () => execute(gateway, browser, CreateTransferDocument, { input })),
    );
    expect(answers.map((answer) => answer.errors)).toEqual(answers.map(() => undefined));
    expect(new Set(answers.map((answer) => answer.data!.createTransfer.transfer.id)).size).toBe(1);
    expect(posts(gateway, '/v1/transfers')).toHaveLength(1);
  });

  it('refuses the same key for another input while the first is in flight, with IDEMPOTENCY_CONFLICT and no second POST', async () => {
    const gateway = await startGateway();
    const { browser, order } = await payingUser(gateway);
    const [first, other] = await Promise.all([
      execute(gateway, browser, CreatePaymentDocument, { input: order, idempotencyKey: 'order-8' }),
      execute(gateway, browser, CreatePaymentDocument, { input: { ...order, amount: 99 }, idempotencyKey: 'order-8' }),
    ]);
    expect(first.errors).toBeUndefined();
    expect(other.errors?.[0]?.extensions).toMatchObject({ code: 'IDEMPOTENCY_CONFLICT', idempotencyKey: 'order-8' });
    expect(posts(gateway, '/v1/payments')).toHaveLength(1);
  });

  it(`sends ONE payment POST for ${CALLERS} concurrent calls split across two gateways on one Redis`, async () => {
    const shared = {
      REDIS_URL,
      REDIS_KEY_PREFIX: testPrefix(),
      TOKEN_ENCRYPTION_KEYS: tokenKeysSetting(),
      SESSION_SECRET: randomBytes(32).toString('base64url'),
    };
    const a = await startGateway(shared);
    // The second instance reaches the first one's platform sandbox over HTTP, as a deployment does.
    const b = createApp(loadConfig({ ...deploymentEnv(a.sandbox, shared), PORT: '0' }), {
      logger: createLogger({ level: 'silent' }),
    });
    await b.start();
    track(() => b.stop());
    const { browser, order } = await payingUser(a);
    const session = sessionCookieValue(browser, a.url)!;
    browser.setCookie(new URL(b.url).host, sessionCookieName(b.url), session);
    const gateways = [a, { url: b.url } as TestGateway];
    const answers = await Promise.all(
      Array.from({ length: CALLERS }, (_, index) =>
        execute(gateways[index % 2]!, browser, CreatePaymentDocument, { input: order, idempotencyKey: 'order-9' }),
      ),
    );
    // Each caller has the payment, or (while the other instance's call was in flight) a coded
    // answer to send the same request again.
    const ids = new Set<string>();
    for (const answer of answers) {
      if (answer.errors) {
        expect(answer.errors[0]!.extensions).toEqual({ code: 'IDEMPOTENCY_IN_PROGRESS', idempotencyKey: 'order-9' });
      } else ids.add(answer.data!.createPayment.payment.id);
    }
    expect(ids.size).toBe(1);
    expect(posts(a, '/v1/payments')).toHaveLength(1);
    // Once finished, both instances answer with that payment and still post nothing.
    for (const gateway of gateways) {
      const again = await execute(gateway, browser, CreatePaymentDocument, { input: order, idempotencyKey: 'order-9' });
      expect(again.data!.createPayment).toMatchObject({ payment: { id: [...ids][0] }, replayed: true });
    }
    expect(posts(a, '/v1/payments')).toHaveLength(1);
  });
});
