import { describe, expect, it } from 'vitest';
import { startGateway } from './support/gateway.js';

const VIEWPORT = '<meta name="viewport" content="width=device-width, initial-scale=1">';

describe('HTML pages', () => {
  it('are readable on a phone: the sign-in, sign-in error, consumer information, consent and sandbox error pages carry a viewport meta', async () => {
    const gateway = await startGateway();
    const html = { accept: 'text/html' };
    const signIn = await fetch(`${gateway.url}/graphql`, { headers: html });
    const failed = await fetch(`${gateway.url}/auth/callback?code=x&state=unknown`, { headers: html });
    const consumerInfo = await fetch(`${gateway.url}/auth/login`, { headers: html });
    const login = await fetch(`${gateway.url}/auth/connect`, { redirect: 'manual' });
    const consent = await fetch(login.headers.get('location')!, { headers: html });
    const sandboxError = await fetch(`${gateway.sandbox.authorizeUrl}?client_id=nobody&response_type=code`, {
      headers: html,
    });
    for (const [name, response] of Object.entries({ signIn, failed, consumerInfo, consent, sandboxError })) {
      expect(response.headers.get('content-type'), name).toContain('text/html');
      expect(await response.text(), name).toContain(VIEWPORT);
    }
  });
});
