import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { chromiumAvailable, launchChromium } from '../support/chromium.js';
import { expectAccountsWithBalances } from '../support/example-app-screens.js';
import { authenticate, signIn } from '../support/example-app.js';
import { buildExampleWeb, bundleText, serveStatic } from '../support/example-web.js';
import { startGateway } from '../support/gateway.js';
import { freePort } from '../support/instances.js';

// What the functions passed to page.evaluate use: they run in the page, not in Node.
declare const document: { documentElement: { scrollWidth: number } };
declare const window: { innerWidth: number; journey?: string };

/** How long a step may take to show (the sandbox settles a payment or transfer after a second). */
const WAIT = { timeout: 10_000 };
/** A value the build's environment holds that must not reach the bundle (only VITE_ variables do). */
const CANARY = 'canary-secret-4b1f9e';

/** The reference frontend (examples/web), built with Vite and served from its own origin, in headless Chromium. */
describe.skipIf(!chromiumAvailable())('the example web app', { timeout: 90_000 }, () => {
  it('signs in with MFA, shows accounts and enriched transactions, pays with a live status, steps up for a transfer, and revokes access', async () => {
    const port = await freePort();
    const origin = `http://localhost:${port}`;
    let offset = 0; // the gateway's clock, moved on to make the second factor stale
    // As in production: the gateway runs only the app's operations (its codegen's manifest), by id.
    const gateway = await startGateway(
      {
        ALLOWED_ORIGINS: origin,
        SESSION_IDLE_TIMEOUT_SECONDS: '86400',
        TRUSTED_DOCUMENTS: 'examples/web/src/__generated__/persisted-documents.json',
      },
      { clock: () => Date.now() + offset },
    );
    const outDir = await buildExampleWeb(gateway.url, { APP_SECRET: CANARY });
    const bundle = await bundleText(outDir);
    expect(bundle).toContain(gateway.url);
    expect(bundle).not.toContain(CANARY);
    await serveStatic(outDir, port);

    const context = await (
      await launchChromium()
    ).newContext({ viewport: { width: 390, height: 844 }, isMobile: true });
    context.setDefaultTimeout(20_000); // steps through the gateway to the sandbox, on a busy machine too
    const page = await context.newPage();
    await page.goto(origin);
    await signIn(page, gateway);

    // Accounts, with balances and their bank.
    await expectAccountsWithBalances(page);
    expect(await layoutWidth(page)).toEqual({ viewport: 390, content: 390 });

    // Transactions, paged, with merchant names, logos and categories from the enrichment.
    await page.getByRole('button', { name: 'Transactions' }).click();
    const rows = page.getByRole('list', { name: 'Transactions' }).getByRole('listitem');
    await rows.first().waitFor();
    expect(await rows.count()).toBe(10);
    expect(await page.locator('li img[src*="logo"]').count()).toBeGreaterThan(0);
    expect(await page.locator('li .category').count()).toBeGreaterThan(0);
    await page.getByRole('button', { name: 'More transactions' }).click();
    await expect.poll(() => rows.count(), WAIT).toBeGreaterThan(10);

    // A payment, its status followed live (no reload).
    const paymentsFollowed = gateway.subscriptionsStarted(1, 'PAYMENT');
    await page.getByRole('button', { name: 'Pay', exact: true }).click();
    await paymentsFollowed;
    await page.evaluate(() => (window.journey = 'same page'));
    await page.getByLabel('From').selectOption({ index: 1 });
    await page.getByLabel('Payee’s name').fill('J R Wilson');
    await page.getByLabel('Payee’s account number').fill('12-3140-0412345-00');
    // Cents of .42: the sandbox moves it to PENDING_APPROVAL by itself; the test then sends it.
    await page.getByLabel('Amount (NZD)').fill('12.42');
    await page.getByRole('button', { name: 'Send payment' }).click();
    const status = page.getByRole('region', { name: 'Payment status' });
    await expect.poll(() => status.getAttribute('data-status'), WAIT).toBe('PENDING_APPROVAL');
    const [payment] = [...gateway.sandbox.payments.payments.values()];
    gateway.sandbox.payments.advancePayment(payment!._id, { status: 'SENT' });
    await expect.poll(() => status.getAttribute('data-status'), WAIT).toBe('SENT');
    expect(await status.getByRole('list', { name: 'Status history' }).getByRole('listitem').allTextContents()).toEqual([
      'On its way to your bank',
      'Waiting for your approval at your bank',
      'Sent to the bank',
    ]);
    expect(await page.evaluate(() => window.journey)).toBe('same page');
    // Sent once, with an idempotency key.
    const posts = gateway.sandbox.requests({ method: 'POST', path: '/v1/payments' });
    expect(posts).toHaveLength(1);
    expect(posts[0]!.headers['idempotency-key']).toEqual(expect.any(String));

    // Two hours later the second factor is stale: a transfer asks for a step-up, then goes through.
    offset = 2 * 3_600_000 + 1_000;
    const own = gateway.sandbox.world().accounts.filter((account) => account.sandboxUserId === payment!.sandboxUserId);
    const from = own.find(
      (account) =>
        account.attributes.includes('TRANSFER_FROM') &&
        own.some(
          (to) =>
            to !== account && to.attributes.includes('TRANSFER_TO') && to.connection._id === account.connection._id,
        ),
    )!;
    const transfersFollowed = gateway.subscriptionsStarted(1, 'TRANSFER');
    await page.getByRole('button', { name: 'Transfer', exact: true }).click();
    await transfersFollowed;
    await page.getByLabel('From').selectOption(from._id);
    await page.getByLabel('To', { exact: true }).selectOption({ index: 1 });
    await page.getByLabel('Amount (NZD)').fill('25');
    await page.getByRole('button', { name: 'Send transfer' }).click();
    const stepUp = page.getByRole('alertdialog', { name: 'Confirm it’s you' });
    await stepUp.waitFor();
    expect(gateway.sandbox.requests({ method: 'POST', path: '/v1/transfers' })).toHaveLength(0);
    const opened = context.waitForEvent('page');
    await stepUp.getByRole('button', { name: 'Confirm it’s you' }).click();
    await authenticate(await opened, gateway);
    const transfer = page.getByRole('region', { name: 'Transfer status' });
    await expect.poll(() => transfer.getAttribute('data-status'), WAIT).toBe('SENT');
    expect(
      await transfer.getByRole('list', { name: 'Status history' }).getByRole('listitem').allTextContents(),
    ).toEqual(['On its way to your bank', 'Sent to the bank']);
    expect(gateway.sandbox.requests({ method: 'POST', path: '/v1/transfers' })).toHaveLength(1);

    // Revoking access, confirmed first, signs the user out.
    await page.getByRole('button', { name: 'Privacy' }).click();
    await page.getByRole('button', { name: 'Revoke all access' }).click();
    await page.getByRole('button', { name: 'Yes, revoke all access' }).click();
    await page.getByRole('button', { name: 'Sign in' }).waitFor();
    expect(await page.getByRole('status').first().textContent()).toContain('Access revoked');
    expect(gateway.sandbox.requests({ method: 'DELETE', path: '/v1/token' }).length).toBeGreaterThan(0);
  });
});

/** The layout viewport and content width: both 390 on a phone only when nothing overflows. */
function layoutWidth(page: Page) {
  return page.evaluate(() => ({ viewport: window.innerWidth, content: document.documentElement.scrollWidth }));
}
