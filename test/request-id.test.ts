import { describe, expect, it } from 'vitest';
import { startGateway } from './support/gateway.js';
import { signedInUser } from './support/webhooks.js';

async function me(
  gateway: Awaited<ReturnType<typeof startGateway>>,
  cookie: string,
  headers: Record<string, string> = {},
) {
  return fetch(`${gateway.url}/graphql`, {
    method: 'POST',
    headers: { cookie, 'content-type': 'application/json', ...headers },
    body: JSON.stringify({ query: 'query Me { me { id } }' }),
  });
}

describe('request ids', () => {
  it('gives every request an id: in the response, on its log lines, and sent upstream', async () => {
    const gateway = await startGateway();
    const { browser } = await signedInUser(gateway);
    const cookie = `gw_session=${browser.cookie(new URL(gateway.url).host, 'gw_session')}`;
    const response = await me(gateway, cookie, { 'x-request-id': 'client-chosen-id-123' });
    expect(response.status).toBe(200);
    const requestId = response.headers.get('x-request-id')!;
    // Not trusted by default: a client cannot choose the id that lands in the logs.
    expect(requestId).toMatch(/^[0-9a-f-]{36}$/);
    const upstream = gateway.sandbox.requests({ method: 'GET', path: '/v1/me' }).at(-1)!;
    expect(upstream.headers['x-request-id']).toBe(requestId);
    const access = await gateway.waitForLog((line) => line.msg === 'http request' && line.requestId === requestId);
    expect(access.path).toBe('/graphql');
    // The access line names the GraphQL operation it carried.
    expect(access.operation).toBe('query Me');
  });

  it('takes the id a trusted proxy set, when well formed', async () => {
    const gateway = await startGateway({ REQUEST_ID_HEADER_TRUSTED: 'true' });
    const { browser } = await signedInUser(gateway);
    const cookie = `gw_session=${browser.cookie(new URL(gateway.url).host, 'gw_session')}`;
    expect((await me(gateway, cookie, { 'x-request-id': 'proxy-id-12345678' })).headers.get('x-request-id')).toBe(
      'proxy-id-12345678',
    );
    expect(gateway.sandbox.requests({ method: 'GET', path: '/v1/me' }).at(-1)!.headers['x-request-id']).toBe(
      'proxy-id-12345678',
    );
    expect((await me(gateway, cookie, { 'x-request-id': 'bad id\twith spaces' })).headers.get('x-request-id')).toMatch(
      /^[0-9a-f-]{36}$/,
    );
  });
});
