import { describe, expect, it } from 'vitest';
import { signInAtProvider } from '@open-finance-gateway/sandbox/testing';
import { runNativeApp, type OpenUrl } from '../../examples/native/src/native-app.js';
import { Browser } from '../support/browser.js';
import { approveConsent, startGateway, type TestGateway } from '../support/gateway.js';
import { claimsOf } from '../support/native-app.js';

const EMAIL = 'aroha@demo.example';

/**
 * The system browser, scripted: it signs the user in at the sandbox provider (password, then the
 * authenticator code, then allowing the app), and walks the bank connection (the consumer
 * information page, then the platform's consent); each time it follows the last redirect to the
 * app's loopback listener, as a browser would.
 */
function systemBrowser(gateway: TestGateway): { openUrl: OpenUrl; opened: Array<{ purpose: string; url: string }> } {
  const browser = new Browser();
  const opened: Array<{ purpose: string; url: string }> = [];
  const openUrl: OpenUrl = async (url, purpose) => {
    opened.push({ purpose, url });
    let back: string;
    if (purpose === 'sign-in') {
      const redirectUri = new URL(url).searchParams.get('redirect_uri')!;
      back = (await signInAtProvider(browser, gateway.sandbox, url, EMAIL, redirectUri)).href;
    } else {
      const page = await browser.request(url);
      const continueHref = /class="button" href="([^"]+)"/.exec(page.text)?.[1]?.replaceAll('&amp;', '&');
      if (!continueHref) throw new Error(`no consumer information page (${page.status})`);
      const callback = await browser.request((await approveConsent(browser, continueHref)).href);
      back = callback.location!;
    }
    const landed = await browser.request(back);
    if (landed.status !== 200) throw new Error(`the app's loopback answered ${landed.status}`);
  };
  return { openUrl, opened };
}

describe('examples/native, end to end against the sandbox', () => {
  it('signs in with PKCE and MFA over a loopback redirect, connects the bank, reads accounts with the bearer, and follows a payment over graphql-ws and multipart', async () => {
    // No APP_RETURN_URIS: on the embedded sandbox the example's loopback return is accepted as it is.
    const gateway = await startGateway({}, { sandbox: { paymentSettleMs: 50 } });
    const { openUrl, opened } = systemBrowser(gateway);
    const bothSubscribed = gateway.subscriptionsStarted(2, 'PAYMENT');
    const run = await runNativeApp({
      gatewayUrl: gateway.url,
      issuer: gateway.sandbox.identity.issuer,
      clientId: gateway.sandbox.identity.nativeClientId,
      openUrl,
      // Live delivery on both transports, and the platform's webhooks for the new bank connection.
      beforePaying: async () => {
        await bothSubscribed;
        await gateway.waitForEvent('webhooks-registered');
      },
    });

    // The sign-in: the system browser at the provider, PKCE S256, back on a loopback port.
    const signIn = new URL(opened[0]!.url);
    expect(opened[0]!.purpose).toBe('sign-in');
    expect(signIn.origin).toBe(new URL(gateway.sandbox.identity.issuer).origin);
    expect(signIn.searchParams.get('code_challenge_method')).toBe('S256');
    expect(signIn.searchParams.get('redirect_uri')).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/callback$/);
    expect(claimsOf(run.accessToken)).toMatchObject({
      client_id: gateway.sandbox.identity.nativeClientId,
      aud: gateway.url,
      amr: expect.arrayContaining(['otp']),
    });
    expect(run.mfa).toBe('FRESH');

    // The bank connection: a single-use URL of the gateway, back to the app with its own state.
    expect(opened[1]).toEqual({ purpose: 'bank-connection', url: expect.stringContaining(gateway.url) });
    expect(run.bankConnection).toEqual({
      outcome: 'connected',
      state: run.bankConnection.sentState,
      sentState: expect.any(String),
    });
    const reused = await new Browser().request(opened[1]!.url);
    expect(reused.status).toBe(400);

    // Over HTTP with the bearer: the user's own accounts.
    expect(run.accounts.length).toBeGreaterThan(0);
    const own = new Set(
      gateway.sandbox
        .world()
        .accounts.filter((account) => account.sandboxUserId === run.me.id)
        .map((account) => account._id),
    );
    expect(run.accounts.filter((account) => !own.has(account.id))).toEqual([]);

    // The payment, followed to its final status over both transports.
    const { socket, multipart } = run.payment.statuses;
    expect(socket.length).toBeGreaterThan(0);
    expect(multipart).toEqual(socket);
    expect(socket.at(-1)).toBe('SENT');
  });
});
