import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { launchChromium } from '../support/chromium.js';
import { expectAccountsWithBalances } from '../support/example-app-screens.js';
import { graphqlInPage } from '../support/graphiql-browser.js';
import { allFree, freePort, runNpm } from '../support/npm-commands.js';

// What the functions passed to page.evaluate use: they run in the page, not in Node.
declare const document: { querySelectorAll(selector: string): Iterable<{ complete: boolean; naturalWidth: number }> };

const DEMO_USER = 'aroha@demo.example';
const WAIT = { timeout: 15_000 };

/** The README's ports: `npm start` on 4000; the example's app on 5173, its gateway on 4100. */
const README_PORTS = { PORT: 4000, EXAMPLE_GATEWAY_PORT: 4100, EXAMPLE_WEB_PORT: 5173 };

/**
 * A newcomer's first run, as CI does it on its fresh clone before `npm test` has generated
 * anything: `npm start` left running, as anyone would, then `npm run example` beside it, the app in
 * Chromium through every screen a reviewer tries, and the quick start's GraphiQL still signed in at
 * the end. It knows only what a person sees: the commands' output and the pages (no sandbox
 * internals), and imports nothing that needs a build first.
 */
describe('npm start, then npm run example beside it, on a fresh clone', { timeout: 300_000 }, () => {
  it('serves the app: sign-in with MFA, accounts, transactions, a payment to its final status, stopping one account, revoking all; the quick start stays signed in', async () => {
    const ports = await portsToUse();
    const [, quickStart] = await runNpm(
      'start',
      { ...process.env, PORT: ports.PORT },
      /open (http:\/\/localhost:\d+)\/graphql/,
    );
    const context = await (await launchChromium()).newContext({ viewport: { width: 390, height: 844 } });
    context.setDefaultTimeout(WAIT.timeout);
    const graphiql = await context.newPage();
    await graphiql.goto(`${quickStart}/graphql`);
    await graphiql.getByRole('link', { name: 'Sign in' }).click();
    await signInAtSandbox(graphiql, 'Open Finance Demo');
    await graphiql.waitForURL(`${quickStart}/graphql`);
    expect(await whoAmI(graphiql)).toBe(200);

    const { appUrl } = await runExample(ports);
    const page = await context.newPage();
    await page.goto(appUrl);
    await page.getByRole('button', { name: 'Sign in' }).click({ noWaitAfter: true });
    await signInInPopup(page);
    expect(await brokenImages(page)).toEqual([]);

    // Accounts, with balances.
    await expectAccountsWithBalances(page);

    // Transactions, with a second page.
    await page.getByRole('button', { name: 'Transactions', exact: true }).click();
    const rows = page.getByRole('list', { name: 'Transactions' }).getByRole('listitem');
    await rows.first().waitFor();
    expect(await rows.count()).toBe(10);
    await page.getByRole('button', { name: 'More transactions' }).click();
    await expect.poll(() => rows.count(), WAIT).toBeGreaterThan(10);
    await page.waitForLoadState('networkidle');
    expect(await brokenImages(page)).toEqual([]);

    // A payment, followed live to its final status.
    await page.getByRole('button', { name: 'Pay', exact: true }).click();
    await page.getByLabel('From').selectOption({ index: 1 });
    await page.getByLabel('Payee’s name').fill('J R Wilson');
    await page.getByLabel('Payee’s account number').fill('12-3140-0412345-00');
    await page.getByLabel('Amount (NZD)').fill('12.00');
    await page.getByRole('button', { name: 'Send payment' }).click();
    const status = page.getByRole('region', { name: 'Payment status' });
    await expect.poll(() => status.getAttribute('data-final'), WAIT).toBe('true');
    expect(await status.locator('.status').textContent()).toBe('Sent to the bank');
    await page.getByRole('button', { name: 'New payment' }).waitFor();

    // Stop sharing one account, confirmed first.
    await page.getByRole('button', { name: 'Privacy', exact: true }).click();
    const connected = page.getByRole('list', { name: 'Connected accounts' }).getByRole('listitem');
    await connected.first().waitFor();
    const before = await connected.count();
    await connected
      .first()
      .getByRole('button', { name: /^Stop sharing / })
      .click();
    await connected.first().getByRole('button', { name: 'Yes, stop sharing' }).click();
    await expect.poll(() => connected.count(), WAIT).toBe(before - 1);
    await page.getByText(/^You stopped sharing .+\. Kete no longer sees it or pays from it\.$/).waitFor();

    // Revoke all access: signed out, said once.
    await page.getByRole('button', { name: 'Revoke all access' }).click();
    await page.getByRole('button', { name: 'Yes, revoke all access' }).click();
    await page.getByText('Access revoked. You are signed out.').waitFor();
    await page.getByRole('button', { name: 'Sign in' }).waitFor();
    expect(await page.getByText(/signed out/i).count()).toBe(1);

    // The quick start on its own port kept its own session through all of it.
    expect(await whoAmI(graphiql)).toBe(200);
  });
});

/** The README's ports when all are free (CI's fresh machine); free ones otherwise (a busy machine), said so. */
async function portsToUse(): Promise<Record<keyof typeof README_PORTS, string>> {
  if (await allFree(Object.values(README_PORTS)))
    return { PORT: '4000', EXAMPLE_GATEWAY_PORT: '4100', EXAMPLE_WEB_PORT: '5173' };
  process.stderr.write('first-run journey: a README port is taken on this machine, so it runs on free ports\n');
  return {
    PORT: String(await freePort()),
    EXAMPLE_GATEWAY_PORT: String(await freePort()),
    EXAMPLE_WEB_PORT: String(await freePort()),
  };
}

/** Whether the page's gateway takes the browser's session: the status of `{ me { id } }`. */
async function whoAmI(page: Page): Promise<number> {
  return (await graphqlInPage(page, '{ me { id } }')).status;
}

/** `npm run example` beside the quick start; resolves with the app's URL once it says where to go. */
async function runExample(ports: Record<string, string>): Promise<{ appUrl: string }> {
  const env = { ...process.env, ...ports };
  const [, appUrl] = await runNpm('example', env, /Example web app: open (http:\/\/localhost:\d+)/);
  return { appUrl: appUrl! };
}

/** The sign-in window: the sandbox's pages, for the app the user sees (Kete), then the window closes by itself. */
async function signInInPopup(page: Page): Promise<void> {
  const popup = await page.context().waitForEvent('page');
  const closed = popup.waitForEvent('close', { timeout: 60_000 }); // the window may come back and close at any moment
  closed.catch(() => undefined); // a step before may fail first: no unhandled rejection then
  await signInAtSandbox(popup, 'Kete');
  await closed;
  await page.getByRole('button', { name: 'Sign out' }).waitFor();
}

/**
 * The identity provider's pages (the password its sign-in page lists, the code its code page
 * shows), the consumer information page and the platform's consent, each naming `app`.
 */
async function signInAtSandbox(page: Page, app: string): Promise<void> {
  await page.getByRole('heading', { name: `Sign in to ${app}` }).waitFor();
  await page.locator('#email').fill(DEMO_USER);
  const row = page.getByRole('row').filter({ hasText: DEMO_USER });
  await page.locator('#secret').fill((await row.locator('code').first().textContent())!);
  await page.getByRole('button', { name: 'Continue' }).click();
  await page.locator('#code').fill((await page.locator('[data-totp-now]').textContent())!);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.getByRole('heading', { name: `Connect your bank to ${app}` }).waitFor();
  await page.getByRole('link', { name: /^Continue to/ }).click();
  await page.getByRole('heading', { name: `Connect your accounts to ${app}` }).waitFor();
  await page.getByRole('button', { name: /^Connect as Aroha Ngata/ }).click();
}

function brokenImages(page: Page): Promise<number[]> {
  return page.evaluate(() =>
    [...document.querySelectorAll('img')]
      .filter((image) => image.complete && image.naturalWidth === 0)
      .map((_, i) => i),
  );
}
