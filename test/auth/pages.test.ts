import { describe, expect, it } from 'vitest';
import { Browser } from '../support/browser.js';
import { MFA_DEMO_USERS, signInToApp, startConnection, startGateway } from '../support/gateway.js';

const VIEWPORT = '<meta name="viewport" content="width=device-width, initial-scale=1">';

describe('HTML pages', () => {
  it('are readable on a phone: the sign-in, sign-in error, consumer information, consent and sandbox error pages carry a viewport meta', async () => {
    const gateway = await startGateway();
    const html = { accept: 'text/html' };
    const signIn = await fetch(`${gateway.url}/graphql`, { headers: html });
    const failed = await fetch(`${gateway.url}/auth/callback?code=x&state=unknown`, { headers: html });
    const identityLogin = await fetch(`${gateway.url}/auth/login`, { redirect: 'manual' });
    const identity = await fetch(identityLogin.headers.get('location')!, { redirect: 'manual' });
    const identityPage = await fetch(new URL(identity.headers.get('location')!, identity.url), { headers: html });
    const browser = new Browser();
    await signInToApp(browser, gateway.sandbox, gateway.url, MFA_DEMO_USERS[0]!);
    const consumerInfoPage = await browser.request(`${gateway.url}/auth/consumer-info`);
    const consumerInfo = new Response(consumerInfoPage.text, { headers: consumerInfoPage.headers });
    const login = await startConnection(browser, gateway.url);
    const consent = await fetch(login.location!, { headers: html });
    const sandboxError = await fetch(`${gateway.sandbox.authorizeUrl}?client_id=nobody&response_type=code`, {
      headers: html,
    });
    for (const [name, response] of Object.entries({
      signIn,
      failed,
      identityPage,
      consumerInfo,
      consent,
      sandboxError,
    })) {
      expect(response.headers.get('content-type'), name).toContain('text/html');
      expect(await response.text(), name).toContain(VIEWPORT);
    }
  });
});
