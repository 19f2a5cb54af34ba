import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { createServer } from 'node:net';
import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { launchChromium } from '../support/chromium.js';
import { expectAccountsWithBalances } from '../support/example-app-screens.js';
import { track } from '../support/leftovers.js';

// What the functions passed to page.evaluate use: they run in the page, not in Node.
declare const document: { querySelectorAll(selector: string): Iterable<{ complete: boolean; naturalWidth: number }> };

const DEMO_USER = 'aroha@demo.example';
const WAIT = { timeout: 15_000 };

/**
 * A newcomer's first run, as CI does it on its fresh clone before `npm test` has generated
 * anything: `npm run example`, then the app in Chromium through every screen a reviewer tries.
 * It knows only what a person sees: the command's output and the pages (no sandbox internals),
 * and imports nothing that needs a build first.
 */
describe('npm run example on a fresh clone', { timeout: 300_000 }, () => {
  it('serves the app: sign-in with MFA, accounts, transactions, a payment to its final status, stopping one account, revoking all', async () => {
    const { appUrl } = await runExample();
    const context = await (await launchChromium()).newContext({ viewport: { width: 390, height: 844 } });
    context.setDefaultTimeout(WAIT.timeout);
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

    // Revoke all access: signed out, said once.
    await page.getByRole('button', { name: 'Revoke all access' }).click();
    await page.getByRole('button', { name: 'Yes, revoke all access' }).click();
    await page.getByText('Access revoked. You are signed out.').waitFor();
    await page.getByRole('button', { name: 'Sign in' }).waitFor();
    expect(await page.getByText(/signed out/i).count()).toBe(1);
  });
});

/** `npm run example` on free ports, as its README says; resolves with the app's URL once it says where to go. */
async function runExample(): Promise<{ appUrl: string }> {
  const env = {
    ...process.env,
    EXAMPLE_GATEWAY_PORT: String(await freePort()),
    EXAMPLE_WEB_PORT: String(await freePort()),
  };
  const child = spawn('npm', ['run', 'example'], { env, detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
  track(() => stop(child));
  let output = '';
  const appUrl = await new Promise<string>((resolve, reject) => {
    const read = (chunk: Buffer) => {
      output += chunk.toString();
      const open = /Example web app: open (http:\/\/localhost:\d+)/.exec(output);
      if (open) resolve(open[1]!);
    };
    child.stdout.on('data', read);
    child.stderr.on('data', read);
    child.once('exit', (code) => reject(new Error(`npm run example exited with ${code}:\n${output.slice(-4000)}`)));
  });
  return { appUrl };
}

/** Ends `npm run example` and everything it started (Ctrl+C, as a person would). */
async function stop(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.pid === undefined) return;
  const exited = once(child, 'exit');
  process.kill(-child.pid, 'SIGINT');
  await exited;
}

/** The sign-in window: the password the sandbox's sign-in page lists, the code its code page shows, then consent. */
async function signInInPopup(page: Page): Promise<void> {
  const popup = await page.context().waitForEvent('page');
  const closed = popup.waitForEvent('close', { timeout: 60_000 }); // the window may come back and close at any moment
  closed.catch(() => undefined); // a step before may fail first: no unhandled rejection then
  await popup.locator('#email').fill(DEMO_USER);
  const row = popup.getByRole('row').filter({ hasText: DEMO_USER });
  await popup.locator('#secret').fill((await row.locator('code').first().textContent())!);
  await popup.getByRole('button', { name: 'Continue' }).click();
  await popup.locator('#code').fill((await popup.locator('[data-totp-now]').textContent())!);
  await popup.getByRole('button', { name: 'Sign in' }).click();
  await popup.getByRole('link', { name: /^Continue to/ }).click();
  await popup.getByRole('button', { name: /^Connect as Aroha Ngata/ }).click();
  await closed;
  await page.getByRole('button', { name: 'Sign out' }).waitFor();
}

function brokenImages(page: Page): Promise<number[]> {
  return page.evaluate(() =>
    [...document.querySelectorAll('img')]
      .filter((image) => image.complete && image.naturalWidth === 0)
      .map((_, i) => i),
  );
}

/** A port nobody listens on now (this file cannot use the test helpers: they load built packages). */
async function freePort(): Promise<number> {
  const server = createServer().listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as { port: number };
  server.close();
  return port;
}
