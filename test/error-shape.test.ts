import { describe, expect, it } from 'vitest';
import { startGateway } from './support/gateway.js';

const shape = (code: string) => ({ errors: [{ message: expect.any(String), extensions: { code } }] });

describe('errors outside GraphQL', () => {
  it('have GraphQL\u2019s shape with a stable code: unknown route, wrong method, webhook refusals, admin', async () => {
    const gateway = await startGateway({ ADMIN_TOKEN: 'error-shape-admin-token-0123456789abcdef' });
    const answer = async (path: string, init: RequestInit = {}) => {
      const response = await fetch(`${gateway.url}${path}`, init);
      return { status: response.status, body: (await response.json()) as unknown };
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
