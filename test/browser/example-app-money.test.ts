import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { chromiumAvailable } from '../support/chromium.js';
import { builtExampleApp } from '../support/example-app.js';
import type { TestGateway } from '../support/gateway.js';

// What the functions passed to evaluate use: they run in the page, not in Node.
declare function getComputedStyle(element: unknown): { display: string };

const WAIT = { timeout: 10_000 };

/** Money moves once per intent in the example app, and its status reads as words, in headless Chromium. */
describe.skipIf(!chromiumAvailable())('the example app’s payments and transfers', { timeout: 90_000 }, () => {
  const app = builtExampleApp();

  it('sends one payment for two clicks on Send at once, then shows the result with "New payment", which starts a new intent with a new key', async () => {
    const { gateway, page } = await app.openSignedIn();
    await openPay(page, gateway);
    await fillPayment(page, '10.00');
    // Two clicks in the same instant, before React can re-render the button disabled.
    await page.getByRole('button', { name: 'Send payment' }).evaluate((button: { click(): void }) => {
      button.click();
      button.click();
    });

    const status = page.getByRole('region', { name: 'Payment status' });
    await expect.poll(() => status.getAttribute('data-final'), WAIT).toBe('true');
    expect(await status.getAttribute('data-status')).toBe('SENT');
    const posts = () => gateway.sandbox.requests({ method: 'POST', path: '/v1/payments' });
    expect(posts()).toHaveLength(1);
    // Sent: the form is gone, so nothing can send it again; the result and one way on are shown.
    expect(await page.getByRole('button', { name: 'Send payment' }).count()).toBe(0);
    expect(await page.getByRole('heading', { name: /\$10\.00 to J R Wilson/ }).count()).toBe(1);

    await page.getByRole('button', { name: 'New payment' }).click();
    expect(await page.getByLabel('Payee’s name').inputValue()).toBe('');
    await fillPayment(page, '10.00'); // the same details again: a second, deliberate payment
    await page.getByRole('button', { name: 'Send payment' }).click();
    await expect.poll(() => posts().length, WAIT).toBe(2);
    const [first, second] = posts().map((post) => post.headers['idempotency-key']);
    expect(second).not.toBe(first);
  });

  it('keeps the intent’s idempotency key when the answer was lost: "Check and retry safely" pays once', async () => {
    const { gateway, page } = await app.openSignedIn();
    await openPay(page, gateway);
    await fillPayment(page, '20.00');
    // The platform makes the payment, and the answer never arrives.
    gateway.sandbox.setCoreFault({ pathPrefix: '/v1/payments', dropResponse: true, times: 1 });
    await page.getByRole('button', { name: 'Send payment' }).click();
    const retry = page.getByRole('button', { name: 'Check and retry safely' });
    await retry.waitFor();
    expect(await page.getByLabel('Amount (NZD)').isDisabled()).toBe(true); // the intent is fixed now
    await retry.click();

    const status = page.getByRole('region', { name: 'Payment status' });
    await expect.poll(() => status.getAttribute('data-final'), WAIT).toBe('true');
    const posts = gateway.sandbox.requests({ method: 'POST', path: '/v1/payments' });
    expect(posts).toHaveLength(2);
    expect(posts[1]!.headers['idempotency-key']).toBe(posts[0]!.headers['idempotency-key']);
    expect(gateway.sandbox.payments.payments.size).toBe(1);
  });

  it('shows statuses in words beside the code: a declined payment says why', async () => {
    const { gateway, page } = await app.openSignedIn();
    await openPay(page, gateway);
    await fillPayment(page, '5.13'); // the sandbox declines .13 for insufficient funds
    await page.getByRole('button', { name: 'Send payment' }).click();
    const status = page.getByRole('region', { name: 'Payment status' });
    await expect.poll(() => status.getAttribute('data-status'), WAIT).toBe('DECLINED');
    expect(await status.locator('.status').textContent()).toBe('Declined: Insufficient funds');
    expect(await status.locator('code').textContent()).toBe('DECLINED');
    const steps = status.getByRole('list', { name: 'Status history' }).getByRole('listitem');
    expect(await steps.allTextContents()).toEqual(['On its way to your bank', 'Declined']);
    // A list that reads as one: each step on a line of its own, numbered, not one sentence on one line.
    const [first, second] = await Promise.all([steps.nth(0).boundingBox(), steps.nth(1).boundingBox()]);
    expect(second!.y).toBeGreaterThanOrEqual(first!.y + first!.height);
    expect(second!.x).toBe(first!.x);
    expect(await steps.first().evaluate((item) => getComputedStyle(item).display)).toBe('list-item');
  });

  it('sends one transfer for a double click on Send, and shows it with "New transfer"', async () => {
    const { gateway, page } = await app.openSignedIn();
    const followed = gateway.subscriptionsStarted(1, 'TRANSFER');
    await page.getByRole('button', { name: 'Transfer', exact: true }).click();
    await followed;
    const from = transferSource(gateway);
    await page.getByLabel('From').selectOption(from);
    await page.getByLabel('To', { exact: true }).selectOption({ index: 1 });
    await page.getByLabel('Amount (NZD)').fill('25');
    await page.getByRole('button', { name: 'Send transfer' }).dblclick();

    const status = page.getByRole('region', { name: 'Transfer status' });
    await expect.poll(() => status.getAttribute('data-status'), WAIT).toBe('SENT');
    expect(await status.locator('.status').textContent()).toBe('Sent to the bank');
    expect(gateway.sandbox.requests({ method: 'POST', path: '/v1/transfers' })).toHaveLength(1);
    expect(await page.getByRole('button', { name: 'Send transfer' }).count()).toBe(0);
    await page.getByRole('button', { name: 'New transfer' }).click();
    await page.getByRole('button', { name: 'Send transfer' }).waitFor();
  });
});

async function openPay(page: Page, gateway: TestGateway): Promise<void> {
  const followed = gateway.subscriptionsStarted(1, 'PAYMENT');
  await page.getByRole('button', { name: 'Pay', exact: true }).click();
  await followed;
}

async function fillPayment(page: Page, amount: string): Promise<void> {
  await page.getByLabel('From').selectOption({ index: 1 });
  await page.getByLabel('Payee’s name').fill('J R Wilson');
  await page.getByLabel('Payee’s account number').fill('12-3140-0412345-00');
  await page.getByLabel('Amount (NZD)').fill(amount);
}

/** One of the demo user's accounts that can send a transfer to another of theirs at the same bank. */
function transferSource(gateway: TestGateway): string {
  const userId = gateway.sandbox.world().users[0]!._id;
  const own = gateway.sandbox.world().accounts.filter((account) => account.sandboxUserId === userId);
  return own.find(
    (account) =>
      account.attributes.includes('TRANSFER_FROM') &&
      own.some(
        (to) => to !== account && to.attributes.includes('TRANSFER_TO') && to.connection._id === account.connection._id,
      ),
  )!._id;
}
