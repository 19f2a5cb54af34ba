import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { chromiumAvailable, launchChromium } from '../support/chromium.js';
import { startGateway, type TestGateway } from '../support/gateway.js';
import { signInAtIdentityProvider, signInToGraphiQL } from '../support/graphiql-browser.js';

/** Runs in a page of the gateway: a same-origin `{ me { id } }`, as GraphiQL sends it (the session cookie goes along). */
async function askWhoAmI(page: Page): Promise<number> {
  return page.evaluate(async () => {
    const response = await fetch('/graphql', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ query: '{ me { id } }' }),
    });
    return response.status;
  });
}

/** Runs in a page of the gateway: the user revokes all access there (the Privacy screen's button). */
async function revokeAllAccess(page: Page): Promise<unknown> {
  return page.evaluate(async () => {
    const response = await fetch('/graphql', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ query: 'mutation { revokeAllAccess { revoked signedOut } }' }),
    });
    return ((await response.json()) as { data: unknown }).data;
  });
}

/** GraphiQL's sign-in started in a tab of its own, up to the identity provider's page. */
async function startSignIn(page: Page, gateway: TestGateway): Promise<void> {
  await page.goto(`${gateway.url}/graphql`);
  await page.getByRole('link', { name: 'Sign in' }).click();
  await page.locator('#email').waitFor();
}

/**
 * The quick start on one port and the example's gateway on another, both on `localhost`, in one
 * browser: cookies ignore ports, so anything named alike would be shared between the two.
 */
describe.skipIf(!chromiumAvailable())('two gateways on one machine, in one browser', { timeout: 90_000 }, () => {
  it('keep their sessions apart: signing in, signing out or revoking all access at one leaves the other signed in', async () => {
    const quickStart = await startGateway();
    const example = await startGateway();
    expect(new URL(quickStart.url).hostname).toBe(new URL(example.url).hostname);
    const context = await (await launchChromium()).newContext();

    // Two sign-ins in flight at once: each one's browser binding (the OAuth state's) is its own.
    const first = await context.newPage();
    const second = await context.newPage();
    await startSignIn(first, quickStart);
    await startSignIn(second, example);
    await signInAtIdentityProvider(first, quickStart);
    await first.getByRole('link', { name: /^Continue to/ }).click();
    await first
      .getByRole('button', { name: /^Connect as/ })
      .first()
      .click();
    await first.waitForURL(`${quickStart.url}/graphql`);
    expect(await askWhoAmI(first)).toBe(200);
    await second.close();

    // Signed in at the example too: the quick start's session is untouched.
    const atExample = await signInToGraphiQL(context, example);
    expect(await askWhoAmI(atExample)).toBe(200);
    expect(await askWhoAmI(first)).toBe(200);

    // Signing out of the example does not sign the browser out of the quick start.
    await atExample.locator('#sign-out').click();
    await atExample.getByRole('link', { name: 'Sign in' }).waitFor();
    expect(await askWhoAmI(atExample)).toBe(401);
    expect(await askWhoAmI(first)).toBe(200);

    // Nor does "Revoke all access" at the example. (Its identity provider still knows the browser
    // and its bank connection outlives sign-out: the sign-in goes straight back to GraphiQL.)
    await atExample.getByRole('link', { name: 'Sign in' }).click();
    await atExample.waitForURL(`${example.url}/graphql`);
    await atExample.locator('.graphiql-execute-button').waitFor();
    const again = atExample;
    expect(await revokeAllAccess(again)).toEqual({ revokeAllAccess: { revoked: true, signedOut: true } });
    expect(await askWhoAmI(again)).toBe(401);
    expect(await askWhoAmI(first)).toBe(200);
  });
});
