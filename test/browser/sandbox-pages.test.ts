import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { chromiumAvailable, launchChromium } from '../support/chromium.js';
import { startGateway } from '../support/gateway.js';
import { signedInUser } from '../support/webhooks.js';

// What the functions passed to page.evaluate use: they run in the page, not in Node.
interface DemoCell {
  textContent: string | null;
  firstChild: unknown;
  querySelector(selector: string): DemoCell | null;
}
declare const document: {
  createRange(): { selectNodeContents(node: unknown): void; getClientRects(): { length: number } };
  querySelectorAll(selector: string): Iterable<DemoCell>;
  documentElement: { scrollWidth: number };
};

/** Each cell of the demo users' table, with how many lines its text takes on the page. */
function demoCellLines(page: Page): Promise<Array<{ text: string; lines: number }>> {
  return page.evaluate(() =>
    [...document.querySelectorAll('.note table td:nth-child(-n+2)')].map((cell) => {
      // The text itself (a password is inside <code>): one client rect per line it takes.
      const range = document.createRange();
      range.selectNodeContents((cell.querySelector('code') ?? cell).firstChild);
      return { text: cell.textContent ?? '', lines: range.getClientRects().length };
    }),
  );
}

/** The sandbox's own pages, as a developer sees them in a real browser. */
describe.skipIf(!chromiumAvailable())("the sandbox's pages in a real browser", { timeout: 45_000 }, () => {
  it.each([
    { width: 1280, height: 800 },
    { width: 390, height: 844 },
  ])('the sign-in page keeps each demo e-mail and password on one line at $width px', async (viewport) => {
    const gateway = await startGateway();
    const page = await (await (await launchChromium()).newContext({ viewport })).newPage();
    await page.goto(`${gateway.url}/auth/login`);
    await page.locator('#email').waitFor();
    const cells = await demoCellLines(page);
    expect(cells.map((cell) => cell.text)).toContain('aroha@demo.example');
    expect(cells.filter((cell) => cell.lines !== 1)).toEqual([]);
    // The page itself still fits the screen: a narrow one scrolls the table, not the page.
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBe(viewport.width);
  });

  it("the console's delivery log shows the status each webhook reports apart from its delivery", async () => {
    const gateway = await startGateway();
    const { userId } = await signedInUser(gateway);
    const page = await (await (await launchChromium()).newContext()).newPage();
    await page.goto(gateway.sandbox.consoleUrl);
    const made = await fetch(`${gateway.sandbox.coreUrl}/sandbox/payments`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ user: userId }),
    });
    expect(made.status).toBe(200);

    const table = page.locator('#deliveries');
    expect(await table.locator('th').allTextContents()).toEqual([
      'Created',
      'User',
      'Webhook',
      'Item',
      'Reported status',
      'Delivery',
      'Attempts',
      'Last failure',
    ]);
    const payments = table.locator('tr[data-delivery-id]', { hasText: 'PAYMENT UPDATE' });
    // READY, then SENT once it settles: each delivered, and said so in words of its own.
    await expect.poll(() => payments.count(), { timeout: 10_000 }).toBe(2);
    const delivered = payments.locator('[data-delivery-status="SENT"]');
    await expect.poll(() => delivered.count(), { timeout: 10_000 }).toBe(2);
    expect(await delivered.allTextContents()).toEqual(['Delivered', 'Delivered']);
    expect((await payments.locator('td.status').allTextContents()).sort()).toEqual(['READY', 'SENT']);
  });
});
