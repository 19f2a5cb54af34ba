import { describe, expect, it } from 'vitest';
import { startGateway } from '../../support/gateway.js';
import { sessionCookie } from '../../support/session-cookie.js';
import { signedInUser } from '../../support/webhooks.js';

const FRONTEND = 'http://localhost:5173';

describe('CORS for a frontend on its own dev server', () => {
  it('answers the preflight for an allowed origin, with credentials, and cached', async () => {
    const gateway = await startGateway({ ALLOWED_ORIGINS: FRONTEND });
    const response = await fetch(`${gateway.url}/graphql`, {
      method: 'OPTIONS',
      headers: {
        origin: FRONTEND,
        'access-control-request-method': 'POST',
        'access-control-request-headers': 'content-type',
      },
    });
    expect(response.status).toBe(204);
    expect(response.headers.get('access-control-allow-origin')).toBe(FRONTEND);
    expect(response.headers.get('access-control-allow-credentials')).toBe('true');
    expect(response.headers.get('access-control-allow-methods')).toContain('POST');
    expect(response.headers.get('access-control-allow-headers')).toContain('content-type');
    expect(response.headers.get('access-control-max-age')).toBe('600');
    expect(response.headers.get('vary')).toContain('Origin');
  });

  it('lets the allowed origin read a credentialed GraphQL answer', async () => {
    const gateway = await startGateway({ ALLOWED_ORIGINS: FRONTEND });
    const { browser } = await signedInUser(gateway);
    const cookie = sessionCookie(browser, gateway.url);
    const response = await fetch(`${gateway.url}/graphql`, {
      method: 'POST',
      headers: { origin: FRONTEND, cookie, 'content-type': 'application/json' },
      body: JSON.stringify({ query: '{ me { id } }' }),
    });
    expect(response.status).toBe(200);
    expect(response.headers.get('access-control-allow-origin')).toBe(FRONTEND);
    expect(((await response.json()) as { data: { me: { id: string } } }).data.me.id).toMatch(/^user_/);
  });

  it('gives any other origin no CORS header, and refuses its preflight', async () => {
    const gateway = await startGateway({ ALLOWED_ORIGINS: FRONTEND });
    const preflight = await fetch(`${gateway.url}/graphql`, {
      method: 'OPTIONS',
      headers: { origin: 'https://evil.example', 'access-control-request-method': 'POST' },
    });
    expect(preflight.status).toBe(403);
    expect(preflight.headers.get('access-control-allow-origin')).toBeNull();
    const read = await fetch(`${gateway.url}/graphql?query=${encodeURIComponent('{ __typename }')}`, {
      headers: { origin: 'https://evil.example', 'apollo-require-preflight': 'true' },
    });
    expect(read.headers.get('access-control-allow-origin')).toBeNull();
    const none = await fetch(`${gateway.url}/graphql?query=${encodeURIComponent('{ __typename }')}`, {
      headers: { 'apollo-require-preflight': 'true' },
    });
    expect(none.headers.get('access-control-allow-origin')).toBeNull();
  });
});
