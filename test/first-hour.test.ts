import { describe, expect, it } from 'vitest';
import { startGateway } from './support/gateway.js';

describe('a frontend developer\u2019s first hour', () => {
  it('answers 401 with UNAUTHENTICATED in the media type the client asked for', async () => {
    const gateway = await startGateway();
    const ask = (accept?: string) =>
      fetch(`${gateway.url}/graphql`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...(accept ? { accept } : {}) },
        body: JSON.stringify({ query: '{ me { id } }' }),
      });
    const graphqlResponse = await ask('application/graphql-response+json, application/json;q=0.9');
    expect(graphqlResponse.status).toBe(401);
    expect(graphqlResponse.headers.get('content-type')).toContain('application/graphql-response+json');
    expect(await graphqlResponse.json()).toEqual({
      errors: [{ message: expect.any(String), extensions: { code: 'UNAUTHENTICATED' } }],
    });
    const plain = await ask();
    expect(plain.headers.get('content-type')).toContain('application/json');
  });

  it('sends a sign-in started at 127.0.0.1 to the public origin first when PUBLIC_URL is not set', async () => {
    const gateway = await startGateway();
    const publicOrigin = new URL(gateway.url);
    const viaLoopback = new URL(gateway.app.listenUrl);
    expect(viaLoopback.host).not.toBe(publicOrigin.host);
    const started = await fetch(`${viaLoopback.origin}/auth/login?returnTo=%2Fgraphql`, { redirect: 'manual' });
    expect(started.status).toBe(302);
    expect(started.headers.get('location')).toBe(`${publicOrigin.origin}/auth/login?returnTo=%2Fgraphql`);
    // At the public origin it shows the consumer information page; its button leads to the platform's consent.
    const atPublic = await fetch(started.headers.get('location')!, { redirect: 'manual' });
    expect(atPublic.status).toBe(200);
    const connect = await fetch(`${publicOrigin.origin}/auth/connect?returnTo=%2Fgraphql`, { redirect: 'manual' });
    expect(connect.headers.get('location')).toContain('/oauth/authorize');
  });

  it('does not redirect when PUBLIC_URL is set (a proxy may present another Host)', async () => {
    const gateway = await startGateway({ PUBLIC_URL: 'https://gateway.example.test' });
    const started = await fetch(`${gateway.app.listenUrl}/auth/connect`, { redirect: 'manual' });
    expect(started.headers.get('location')).toContain('/oauth/authorize');
  });
});
