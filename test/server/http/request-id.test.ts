import { describe, expect, it } from 'vitest';
import { startGateway } from '../../support/gateway.js';
import { sessionCookie } from '../../support/session-cookie.js';
import { signedInUser } from '../../support/webhooks.js';

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
    const cookie = sessionCookie(browser, gateway.url);
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
    const cookie = sessionCookie(browser, gateway.url);
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

  it('carries the id to enrichment searches and to the error lines of both GraphQL paths', async () => {
    const gateway = await startGateway();
    const { browser } = await signedInUser(gateway);
    const cookie = sessionCookie(browser, gateway.url);
    const post = (query: string, variables?: Record<string, unknown>) =>
      fetch(`${gateway.url}/graphql`, {
        method: 'POST',
        headers: { cookie, 'content-type': 'application/json' },
        body: JSON.stringify({ query, variables }),
      });

    // An enrich query: the search it sends, and its failure's log line.
    const enrich = (description: string) =>
      post('query ($q: [EnrichmentQueryInput!]!) { enrich(queries: $q) { id } }', { q: [{ id: 'a', description }] });
    const served = await enrich('COUNTDOWN PONSONBY');
    const servedId = served.headers.get('x-request-id')!;
    expect(((await served.json()) as { errors?: unknown }).errors).toBeUndefined();
    const search = gateway.sandbox.requests({ method: 'POST', path: '/v1/search' }).at(-1)!;
    expect(search.headers['x-request-id']).toBe(servedId);
    gateway.sandbox.setEnrichmentFault({ status: 500, times: 1 });
    // Another lookup: the first one's answer is cached.
    const failedSearch = await enrich('COUNTDOWN NEWMARKET');
    expect(
      ((await failedSearch.json()) as { errors: Array<{ extensions: { code: string } }> }).errors[0]!.extensions.code,
    ).toBe('UPSTREAM_UNAVAILABLE');
    const searchLine = await gateway.waitForLog((line) => line.upstream === 'enrichment' && line.level === 40);
    expect(searchLine.requestId).toBe(failedSearch.headers.get('x-request-id'));

    // Apollo's path (a core read): the failure is logged with the id of the request it broke.
    gateway.sandbox.setCoreFault({ status: 500, pathPrefix: '/v1/me', times: 1 });
    const failedMe = await post('query Me { me { id } }');
    expect(((await failedMe.json()) as { errors?: unknown[] }).errors).toHaveLength(1);
    const meLine = await gateway.waitForLog((line) => line.upstream === 'core' && line.level === 40);
    expect(meLine.requestId).toBe(failedMe.headers.get('x-request-id'));
  });

  it('puts the id on the log lines of the other routes', async () => {
    const gateway = await startGateway();
    const response = await fetch(`${gateway.url}/auth/oidc/callback?state=forged&code=x`, { redirect: 'manual' });
    await response.arrayBuffer();
    const line = await gateway.waitForLog((entry) => entry.msg === 'sign-in callback refused: bad state');
    expect(line.requestId).toBe(response.headers.get('x-request-id'));
  });
});
