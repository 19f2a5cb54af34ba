import { createHash, randomBytes } from 'node:crypto';
import { once } from 'node:events';
import { createServer } from 'node:http';
import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { chromiumAvailable, launchChromium } from '../support/chromium.js';
import { signIn, startGateway } from '../support/gateway.js';
import { freePort } from '../support/instances.js';
import { track } from '../support/leftovers.js';
import { bearerRequest } from '../support/native-app.js';

// What the functions passed to page.evaluate use: they run in the page, not in Node.
declare const document: { documentElement: { scrollWidth: number } };
declare const window: { innerWidth: number };

const EMAIL = 'aroha@demo.example';

/** The page fits the phone's width: nothing to scroll sideways. */
async function fitsWidth(page: Page): Promise<boolean> {
  return page.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth);
}

/**
 * A native app's sign-in in a phone-sized system browser (headless Chromium at 390 × 844, touch):
 * the sandbox provider's pages (sign-in, second factor, allow the app) fit the screen, and the
 * browser returns to the app's loopback address (RFC 8252 §7.3) with a code the app redeems with
 * PKCE for an access token the gateway accepts.
 */
describe.skipIf(!chromiumAvailable())('a native sign-in on a phone', { timeout: 45_000 }, () => {
  it('fits a phone screen at every step and returns to the app on loopback', async () => {
    const gateway = await startGateway();
    await signIn(gateway, 0);
    const port = await freePort();
    const redirectUri = `http://127.0.0.1:${port}/callback`;
    // The app's loopback listener: it only takes the code.
    const app = createServer((req, res) => {
      res.end('You can return to the app.');
      app.emit('code', new URL(req.url ?? '/', redirectUri).searchParams.get('code'));
    });
    app.listen(port, '127.0.0.1');
    track(() => new Promise<void>((resolve) => app.close(() => resolve())));
    const returned = once(app, 'code');

    const { issuer, nativeClientId } = gateway.sandbox.identity;
    const verifier = randomBytes(32).toString('base64url');
    const authorize = new URL(`${issuer}/auth`);
    authorize.search = new URLSearchParams({
      client_id: nativeClientId,
      response_type: 'code',
      redirect_uri: redirectUri,
      scope: 'openid',
      state: 'phone',
      code_challenge: createHash('sha256').update(verifier).digest('base64url'),
      code_challenge_method: 'S256',
    }).toString();

    const context = await (
      await launchChromium()
    ).newContext({ viewport: { width: 390, height: 844 }, isMobile: true, hasTouch: true, deviceScaleFactor: 3 });
    const page = await context.newPage();
    await page.goto(authorize.href);
    await page.locator('#email').waitFor();
    expect(await fitsWidth(page)).toBe(true);
    await page.locator('#email').fill(EMAIL);
    await page.locator('#secret').fill(gateway.sandbox.identity.users.byEmail(EMAIL)!.demoSecret!);
    await page.getByRole('button', { name: 'Continue' }).click();
    await page.locator('#code').waitFor();
    expect(await fitsWidth(page)).toBe(true);
    await page.locator('#code').fill(gateway.sandbox.identity.currentTotp(EMAIL)!);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('button', { name: 'Allow' }).waitFor();
    expect(await fitsWidth(page)).toBe(true);
    await page.getByRole('button', { name: 'Allow' }).click();
    const [code] = (await returned) as [string];

    const tokens = (await (
      await fetch(`${issuer}/token`, {
        method: 'POST',
        body: new URLSearchParams({
          grant_type: 'authorization_code',
          code,
          redirect_uri: redirectUri,
          client_id: nativeClientId,
          code_verifier: verifier,
        }),
      })
    ).json()) as { access_token: string };
    const me = await bearerRequest(gateway.url, tokens.access_token, '{ bankConnection { connected } }');
    expect(me.data).toEqual({ bankConnection: { connected: true } });
  });
});
