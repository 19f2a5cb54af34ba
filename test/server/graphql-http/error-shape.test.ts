import { describe, expect, it } from 'vitest';
import { startGateway } from '../../support/gateway.js';
import { signedInUser } from '../../support/webhooks.js';

const shape = (code: string) => ({ errors: [{ message: expect.any(String), extensions: { code } }] });

describe('errors outside GraphQL', () => {
  it('have GraphQL\u2019s shape with a stable code: unknown route, wrong method, webhook refusals, admin', async () => {
    const gateway = await startGateway({ ADMIN_TOKEN: 'error-shape-admin-token-0123456789abcdef' });
    const answer = async (path: string, init: RequestInit = {}) => {
      const response = await fetch(`${gateway.url}${path}`, init);
      return { status: response.status, body: await response.json() };
    };
    expect(await answer('/no/such/route')).toEqual({ status: 404, body: shape('NOT_FOUND') });
    expect(await answer('/webhooks')).toEqual({ status: 405, body: shape('METHOD_NOT_ALLOWED') });
    expect(await answer('/webhooks', { method: 'POST', headers: { 'content-type': 'text/plain' }, body: 'x' })).toEqual(
      { status: 415, body: shape('UNSUPPORTED_MEDIA_TYPE') },
    );
    expect(
      await answer('/webhooks', { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' }),
    ).toEqual({ status: 401, body: shape('INVALID_SIGNATURE') });
    expect(await answer('/admin/webhooks/dead-letters')).toEqual({ status: 401, body: shape('UNAUTHENTICATED') });
  });
});

describe('a subscription sent over HTTP', () => {
  it('is refused with BAD_REQUEST naming the WebSocket, not executed into an internal error', async () => {
    const gateway = await startGateway();
    const { browser } = await signedInUser(gateway);
    const response = await browser.request(`${gateway.url}/graphql`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ query: 'subscription { accountEvents { code } }' }),
    });
    expect(response.status).toBe(400);
    const body = JSON.parse(response.text) as { errors: Array<{ message: string; extensions: { code: string } }> };
    expect(body.errors[0]!.extensions.code).toBe('BAD_REQUEST');
    expect(body.errors[0]!.message).toContain('WebSocket');
  });
});
