import { constants, sign } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { SigningKeys } from '@open-finance-gateway/sandbox';
import { MeDocument } from '../__generated__/graphql.js';
import { execute, signIn, startGateway, type TestGateway } from '../support/gateway.js';
import { connectBank } from '../support/sign-in-steps.js';
import { deliver, signedHeaders, signedInUser } from '../support/webhooks.js';

function keyFetches(gateway: TestGateway) {
  return gateway.sandbox.requests({ service: 'core' }).filter((request) => request.path.startsWith('/v1/keys'));
}

function republished(gateway: TestGateway) {
  return gateway.published;
}

const paymentUpdate = (state: string, status = 'SENT') =>
  JSON.stringify({ webhook_type: 'PAYMENT', webhook_code: 'UPDATE', state, item_id: 'payment_abc', status });

describe('webhook subscriptions at sign-in', () => {
  it('subscribes the user to every webhook type with an opaque routing handle', async () => {
    const gateway = await startGateway();
    const { browser, userId, state } = await signedInUser(gateway);
    const hooks = gateway.sandbox.webhookSubscriptions().filter((hook) => hook.userId === userId);
    expect(hooks.map((hook) => hook.type).sort()).toEqual([
      'ACCOUNT',
      'INCOME',
      'PAYMENT',
      'TOKEN',
      'TRANSACTION',
      'TRANSFER',
    ]);
    expect(new Set(hooks.map((hook) => hook.state))).toEqual(new Set([state]));
    expect(state).not.toContain(userId.replace('user_', ''));
    expect(state.length).toBeGreaterThanOrEqual(32);

    // Connecting again (a new consent) does not add another set at the platform.
    await connectBank(browser, gateway.url);
    await gateway.waitForEvent('webhooks-registered', (event) => event.alreadyRegistered.length === 6);
    expect(gateway.sandbox.webhookSubscriptions().filter((hook) => hook.userId === userId)).toHaveLength(6);
  });

  it('subscribes nothing for a personal app', async () => {
    const gateway = await startGateway({ APP_KIND: 'PERSONAL' });
    await signIn(gateway);
    expect(gateway.sandbox.requests({ path: '/v1/webhooks' })).toHaveLength(0);
    const response = await deliver(gateway, '{}', []);
    expect(response.status).toBe(404);
  });
});

describe('webhook signatures', () => {
  it('accepts a valid signature and republishes the event to the user', async () => {
    const gateway = await startGateway();
    const { appUser, state } = await signedInUser(gateway);
    const body = paymentUpdate(state);
    const response = await deliver(gateway, body, signedHeaders(gateway, body));
    expect(response).toEqual({ status: 200, body: { status: 'published' } });
    expect(republished(gateway)).toEqual([
      expect.objectContaining({ userId: appUser, type: 'PAYMENT', code: 'UPDATE' }),
    ]);
  });

  it('refuses a body with one byte changed, a signature from another key, and an RSA-PSS signature', async () => {
    const gateway = await startGateway();
    const { state } = await signedInUser(gateway);
    const body = Buffer.from(paymentUpdate(state));
    const headers = signedHeaders(gateway, body);
    const tampered = Buffer.from(body);
    tampered[tampered.length - 3] = tampered[tampered.length - 3]! ^ 1;
    expect((await deliver(gateway, tampered, headers)).status).toBe(401);

    const foreign = sign('sha256', body, SigningKeys.foreignKey()).toString('base64');
    expect(
      (
        await deliver(gateway, body, [
          ['X-Service-Signature', foreign],
          ['X-Service-Signing-Key', '1'],
        ])
      ).status,
    ).toBe(401);

    const pss = sign('sha256', body, {
      key: gateway.sandbox.signingKeys.privateKey(),
      padding: constants.RSA_PKCS1_PSS_PADDING,
    }).toString('base64');
    expect(
      (
        await deliver(gateway, body, [
          ['X-Service-Signature', pss],
          ['X-Service-Signing-Key', '1'],
        ])
      ).status,
    ).toBe(401);
    expect(republished(gateway)).toHaveLength(0);
  });

  it('refuses missing, empty, non-base64 and doubled headers', async () => {
    const gateway = await startGateway();
    const { state } = await signedInUser(gateway);
    const body = paymentUpdate(state);
    const [signature, keyId] = signedHeaders(gateway, body);
    const cases: Array<Array<[string, string]>> = [
      [],
      [keyId!],
      [signature!],
      [['X-Service-Signature', ''], keyId!],
      [['X-Service-Signature', '!!not base64!!'], keyId!],
      [['X-Service-Signature', signature![1].slice(1)], keyId!],
      [signature!, signature!, keyId!],
      [signature!, keyId!, keyId!],
    ];
    for (const headers of cases)
      expect((await deliver(gateway, body, headers)).status, JSON.stringify(headers.map(([n]) => n))).toBe(401);
    expect(republished(gateway)).toHaveLength(0);
  });

  it('refuses key ids that are not strict positive integers without fetching anything', async () => {
    const gateway = await startGateway();
    const { state } = await signedInUser(gateway);
    const body = paymentUpdate(state);
    const [signature] = signedHeaders(gateway, body);
    for (const keyId of ['1e3', '0x10', '-1', '07 ', '../keys', '0', '1.0', '+1', '99999999999']) {
      expect((await deliver(gateway, body, [signature!, ['X-Service-Signing-Key', keyId]])).status, keyId).toBe(401);
    }
    expect(keyFetches(gateway)).toHaveLength(0);
  });
});

describe('signing key cache', () => {
  it('fetches a key once, with app credentials, however many deliveries arrive at once', async () => {
    const gateway = await startGateway();
    const { state } = await signedInUser(gateway);
    const bodies = Array.from({ length: 6 }, (_, i) => paymentUpdate(state, `S${i}`));
    const responses = await Promise.all(bodies.map((body) => deliver(gateway, body, signedHeaders(gateway, body))));
    expect(responses.map((r) => r.status)).toEqual([200, 200, 200, 200, 200, 200]);
    const fetches = keyFetches(gateway);
    expect(fetches).toHaveLength(1);
    const { appToken, appSecret } = gateway.sandbox.credentials;
    expect(fetches[0]!.headers.authorization).toBe(
      `Basic ${Buffer.from(`${appToken}:${appSecret}`).toString('base64')}`,
    );
  });

  it('refetches a key after 24 hours', async () => {
    let now = Date.parse('2026-11-21T00:00:00Z');
    const gateway = await startGateway({}, { clock: () => now });
    const { state } = await signedInUser(gateway);
    const send = async (status: string) => {
      const body = paymentUpdate(state, status);
      return (await deliver(gateway, body, signedHeaders(gateway, body))).status;
    };
    expect(await send('A')).toBe(200);
    now += 23 * 3_600_000;
    expect(await send('B')).toBe(200);
    expect(keyFetches(gateway)).toHaveLength(1);
    now += 2 * 3_600_000;
    expect(await send('C')).toBe(200);
    expect(keyFetches(gateway)).toHaveLength(2);
  });

  it('on rotation fetches the new key, and drops the old one once the new one has verified', async () => {
    const gateway = await startGateway();
    const { state } = await signedInUser(gateway);
    const first = paymentUpdate(state, 'A');
    expect((await deliver(gateway, first, signedHeaders(gateway, first))).status).toBe(200);

    // An id that is well-formed but far from the current one is refused without a fetch, and does
    // not evict the good key.
    const probe = paymentUpdate(state, 'P');
    expect(
      (await deliver(gateway, probe, [signedHeaders(gateway, probe)[0]!, ['X-Service-Signing-Key', '42']])).status,
    ).toBe(401);
    const again = paymentUpdate(state, 'A2');
    expect((await deliver(gateway, again, signedHeaders(gateway, again))).status).toBe(200);
    expect(keyFetches(gateway).map((r) => r.path)).toEqual(['/v1/keys/1']);

    gateway.sandbox.signingKeys.rotate();
    const second = paymentUpdate(state, 'B');
    expect((await deliver(gateway, second, signedHeaders(gateway, second))).status).toBe(200);
    expect(keyFetches(gateway).at(-1)!.path).toBe('/v1/keys/2');

    // Key 1 was discarded and is below the current id: refused as expired, with no fetch.
    const stale = paymentUpdate(state, 'C');
    expect((await deliver(gateway, stale, signedHeaders(gateway, stale, 1))).status).toBe(401);
    expect(keyFetches(gateway)).toHaveLength(2);
  });
});

describe('webhook delivery handling', () => {
  it('publishes a redelivered body only once', async () => {
    const gateway = await startGateway();
    const { state } = await signedInUser(gateway);
    const body = paymentUpdate(state);
    expect((await deliver(gateway, body, signedHeaders(gateway, body))).body).toEqual({ status: 'published' });
    expect((await deliver(gateway, body, signedHeaders(gateway, body))).body).toEqual({ status: 'duplicate' });
    expect(republished(gateway)).toHaveLength(1);
  });

  it('answers 200 to unknown types', async () => {
    const gateway = await startGateway();
    const { state } = await signedInUser(gateway);
    const unknown = JSON.stringify({ webhook_type: 'USER', webhook_code: 'UPDATE', state });
    expect(await deliver(gateway, unknown, signedHeaders(gateway, unknown))).toEqual({
      status: 200,
      body: { status: 'ignored' },
    });
    expect(republished(gateway)).toHaveLength(0);
  });

  it('routes each event to the user its state belongs to', async () => {
    const gateway = await startGateway();
    const aroha = await signedInUser(gateway, 0);
    const james = await signedInUser(gateway, 1);
    expect(aroha.state).not.toBe(james.state);
    for (const { state } of [aroha, james]) {
      const body = paymentUpdate(state);
      await deliver(gateway, body, signedHeaders(gateway, body));
    }
    expect(republished(gateway).map((line) => line.userId)).toEqual([aroha.appUser, james.appUser]);
    const stranger = paymentUpdate('rh_unknown');
    expect((await deliver(gateway, stranger, signedHeaders(gateway, stranger))).body).toEqual({ status: 'ignored' });
  });

  it('ends the sessions holding a token the platform revoked (TOKEN DELETE)', async () => {
    const gateway = await startGateway();
    const { browser, state } = await signedInUser(gateway);
    const token = gateway.sandbox.issuedTokens().at(-1)!;
    const body = JSON.stringify({ webhook_type: 'TOKEN', webhook_code: 'DELETE', state, item_id: token });
    expect((await deliver(gateway, body, signedHeaders(gateway, body))).status).toBe(200);
    expect((await execute(gateway, browser, MeDocument)).status).toBe(401);
    // The routing handle went with the user's data: later events for it route nowhere.
    const late = paymentUpdate(state);
    expect((await deliver(gateway, late, signedHeaders(gateway, late))).body).toEqual({ status: 'ignored' });
  });
});
