import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { chromiumAvailable, launchChromium } from '../support/chromium.js';
import { startGateway, type TestGateway } from '../support/gateway.js';
import { graphqlInPage, signInAtIdentityProvider, signInToGraphiQL } from '../support/graphiql-browser.js';

/** Whether the page's gateway takes the browser's session: the status of `{ me { id } }`. */
const askWhoAmI = async (page: Page) => (await graphqlInPage(page, '{ me { id } }')).status;

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
    expect((await graphqlInPage(again, 'mutation { revokeAllAccess { revoked signedOut } }')).data).toEqual({
      revokeAllAccess: { revoked: true, signedOut: true },
    });
    expect(await askWhoAmI(again)).toBe(401);
    expect(await askWhoAmI(first)).toBe(200);

    // Each sandbox's identity provider still knows the browser too (its cookies are as apart): signed
    // out of the quick start, signing in again there asks for no password, straight back to GraphiQL.
    await first.locator('#sign-out').click();
    await first.getByRole('link', { name: 'Sign in' }).click();
    await first.waitForURL(`${quickStart.url}/graphql`);
    await first.locator('.graphiql-execute-button').waitFor();
    expect(await askWhoAmI(first)).toBe(200);
  });
});
