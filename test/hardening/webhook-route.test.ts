import { describe, expect, it } from 'vitest';
import { startGateway, type TestGateway } from '../support/gateway.js';
import { deliver, signedHeaders, signedInUser } from '../support/webhooks.js';

function keyFetches(gateway: TestGateway) {
  return gateway.sandbox.requests({ service: 'core' }).filter((request) => request.path.startsWith('/v1/keys'));
}

describe('the webhook route', () => {
  it('answers 200 "ignored" to webhook types named after Object.prototype members', async () => {
    const gateway = await startGateway();
    const { state } = await signedInUser(gateway);
    for (const type of ['constructor', '__proto__', 'toString', 'hasOwnProperty', 'valueOf']) {
      const body = JSON.stringify({ webhook_type: type, webhook_code: 'UPDATE', state });
      expect(await deliver(gateway, body, signedHeaders(gateway, body)), type).toEqual({
        status: 200,
        body: { status: 'ignored' },
      });
      const code = JSON.stringify({ webhook_type: 'PAYMENT', webhook_code: type, state });
      expect(await deliver(gateway, code, signedHeaders(gateway, code)), type).toEqual({
        status: 200,
        body: { status: 'ignored' },
      });
    }
  });

  it('acknowledges a signed body that is not a JSON object, keeps it as a dead letter and does not process it again', async () => {
    const gateway = await startGateway({ ADMIN_TOKEN: 'admin-token-for-tests-0123456789abcdef' });
    await signedInUser(gateway);
    const bodies = [
      '\uFEFF{"webhook_type":"PAYMENT"}',
      '{"webhook_type":"PAYMENT"} trailing',
      '[1,2,3]',
      '"text"',
      'null',
      '{"webhook_type":',
    ];
    for (const body of bodies) {
      expect(await deliver(gateway, body, signedHeaders(gateway, body)), body).toEqual({
        status: 200,
        body: { status: 'dead-lettered' },
      });
      expect(await deliver(gateway, body, signedHeaders(gateway, body)), body).toEqual({
        status: 200,
        body: { status: 'duplicate' },
      });
    }
    expect(gateway.logs.filter((line) => line.level === 50 && String(line.msg).includes('dead letter'))).toHaveLength(
      bodies.length,
    );

    const unauthorised = await fetch(`${gateway.url}/admin/webhooks/dead-letters`);
    expect(unauthorised.status).toBe(401);
    const listed = await fetch(`${gateway.url}/admin/webhooks/dead-letters`, {
      headers: { authorization: 'Bearer admin-token-for-tests-0123456789abcdef' },
    });
    const letters = ((await listed.json()) as { deadLetters: Array<{ bodyPreview: string; reason: string }> })
      .deadLetters;
    expect(letters.map((letter) => letter.bodyPreview)).toEqual([...bodies].reverse());
    expect(letters[0]!.reason).toBe('not valid JSON');
  });

  it('keeps the operator endpoint off when no ADMIN_TOKEN is set', async () => {
    const gateway = await startGateway();
    expect(
      (await fetch(`${gateway.url}/admin/webhooks/dead-letters`, { headers: { authorization: 'Bearer x' } })).status,
    ).toBe(404);
  });

  it('answers 415 to anything but application/json, before any key work', async () => {
    const gateway = await startGateway();
    const { state } = await signedInUser(gateway);
    const body = JSON.stringify({ webhook_type: 'PAYMENT', webhook_code: 'UPDATE', state, item_id: 'payment_x' });
    for (const type of ['text/plain', 'application/x-www-form-urlencoded', 'multipart/form-data; boundary=x', '']) {
      const response = await fetch(`${gateway.url}/webhooks`, {
        method: 'POST',
        headers: { 'content-type': type, ...Object.fromEntries(signedHeaders(gateway, body)) },
        body,
      });
      expect(response.status, type).toBe(415);
    }
    expect(keyFetches(gateway)).toHaveLength(0);
    const charset = await fetch(`${gateway.url}/webhooks`, {
      method: 'POST',
      headers: {
        'content-type': 'Application/JSON; charset=UTF-8',
        ...Object.fromEntries(signedHeaders(gateway, body)),
      },
      body,
    });
    expect(charset.status).toBe(200);
  });
});
