import { describe, expect, it } from 'vitest';
import { startGateway, type TestGateway } from '../support/gateway.js';
import { deliver, signedHeaders, signedInUser } from '../support/webhooks.js';

function keyFetches(gateway: TestGateway) {
  return gateway.sandbox.requests({ service: 'core' }).filter((request) => request.path.startsWith('/v1/keys'));
}

const paymentUpdate = (state: string, status: string) =>
  JSON.stringify({ webhook_type: 'PAYMENT', webhook_code: 'UPDATE', state, item_id: 'payment_abc', status });

/** An unsigned request that names `keyId`: any base64 will do as the "signature". */
function forged(gateway: TestGateway, keyId: number, index: number) {
  return deliver(gateway, paymentUpdate('rh_forged', `F${index}`), [
    ['X-Service-Signature', Buffer.from(`forged-${index}`).toString('base64')],
    ['X-Service-Signing-Key', String(keyId)],
  ]);
}

describe('unsigned requests cannot drive the signing-key fetcher', () => {
  it('spends at most the per-minute budget on unknown key ids, answering 503 (retryable) past it', async () => {
    const gateway = await startGateway({ WEBHOOK_KEY_FETCHES_PER_MINUTE: '10' });
    const statuses: number[] = [];
    const started = Date.now();
    for (let index = 0; index < 300; index += 1) statuses.push((await forged(gateway, 100 + index, index)).status);
    // The budget refills continuously (10 a minute): on a loaded machine the 300 requests take
    // seconds, and each 6 s of them earns one more fetch.
    const refilled = Math.floor(((Date.now() - started) * 10) / 60_000);
    expect(keyFetches(gateway).length).toBeLessThanOrEqual(10 + refilled);
    expect(new Set(statuses)).toEqual(new Set([401, 503]));
    expect(statuses.filter((status) => status === 503).length).toBeGreaterThanOrEqual(290);
  });

  it('refuses ids far above or below the current one without a fetch', async () => {
    const gateway = await startGateway();
    const { state } = await signedInUser(gateway);
    const genuine = paymentUpdate(state, 'A');
    expect((await deliver(gateway, genuine, signedHeaders(gateway, genuine))).status).toBe(200);
    const before = keyFetches(gateway).length;
    for (const [index, keyId] of [5, 50, 999_999].entries())
      expect((await forged(gateway, keyId, index)).status).toBe(401);
    expect(keyFetches(gateway)).toHaveLength(before);
  });

  it('lets a genuine delivery signed with the next key through while forged requests flood the current and next ids', async () => {
    const gateway = await startGateway();
    const { state } = await signedInUser(gateway);
    const first = paymentUpdate(state, 'A');
    expect((await deliver(gateway, first, signedHeaders(gateway, first))).status).toBe(200);

    // Before the rotation: the next id does not exist yet, and forged requests ask for it.
    const early = await Promise.all(Array.from({ length: 50 }, (_, index) => forged(gateway, 2, index)));
    expect(early.every((response) => response.status === 401 || response.status === 503)).toBe(true);

    gateway.sandbox.signingKeys.rotate();
    const flood = Array.from({ length: 200 }, (_, index) =>
      forged(gateway, index % 2 === 0 ? 2 : 3 + (index % 2), 1000 + index),
    );
    const genuine = paymentUpdate(state, 'B');
    const started = performance.now();
    const answer = await deliver(gateway, genuine, signedHeaders(gateway, genuine));
    const elapsed = performance.now() - started;
    await Promise.all(flood);
    expect(answer).toEqual({ status: 200, body: { status: 'published' } });
    expect(elapsed).toBeLessThan(3_000);
    // The next key was fetched about once a second at most, whatever the flood.
    expect(keyFetches(gateway).filter((request) => request.path === '/v1/keys/2').length).toBeLessThanOrEqual(4);
  });

  it('refuses a key that is not RSA of at least 2048 bits and keeps the good key', async () => {
    for (const kind of ['rsa-1024', 'ed25519'] as const) {
      const gateway = await startGateway();
      const { state } = await signedInUser(gateway);
      const first = paymentUpdate(state, 'A');
      expect((await deliver(gateway, first, signedHeaders(gateway, first))).status).toBe(200);

      gateway.sandbox.signingKeys.rotate(kind);
      const weak = paymentUpdate(state, 'W');
      const refused = await deliver(gateway, weak, signedHeaders(gateway, weak));
      expect(refused.status, kind).toBe(401);
      expect(
        gateway.logs.some(
          (line) =>
            line.msg === 'webhook refused: signature not verified' && line.reason === 'key-weak' && line.level === 50,
        ),
      ).toBe(true);

      // Key 1 is still the current one: a body it signs is accepted, with no new fetch of it.
      const again = paymentUpdate(state, 'A2');
      expect((await deliver(gateway, again, signedHeaders(gateway, again, 1))).status, kind).toBe(200);
      expect(keyFetches(gateway).filter((request) => request.path === '/v1/keys/1')).toHaveLength(1);
    }
  });
});
