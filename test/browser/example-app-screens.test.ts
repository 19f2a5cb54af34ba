import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { chromiumAvailable } from '../support/chromium.js';
import { builtExampleApp, signIn } from '../support/example-app.js';

// What the functions passed to page.evaluate use: they run in the page, not in Node.
declare const document: {
  querySelectorAll(selector: string): Iterable<{ complete: boolean; naturalWidth: number; src: string }>;
};

const WAIT = { timeout: 10_000 };
const SCREENS = ['Accounts', 'Transactions', 'Pay', 'Transfer', 'Your name', 'Privacy'];

/** What the example app shows on each screen, in headless Chromium. */
describe.skipIf(!chromiumAvailable())('the example app’s screens', { timeout: 90_000 }, () => {
  const app = builtExampleApp();

  it('shows no broken image on any screen: bank and merchant logos load, and an image that fails falls back to initials', async () => {
    const { gateway, page } = await app.open();
    expect(await brokenImages(page)).toEqual([]); // the sign-in screen
    await signIn(page, gateway);
    let logos = 0;
    for (const screen of SCREENS) {
      await page.getByRole('button', { name: screen, exact: true }).click();
      await page.getByRole('heading', { level: 2 }).waitFor();
      await page.waitForLoadState('networkidle');
      expect(await brokenImages(page), screen).toEqual([]);
      logos += await page.locator('img').count();
    }
    expect(logos).toBeGreaterThan(10);

    // The sandbox's logo server goes away: every logo becomes the bank's or merchant's initials.
    await page.route('**/logos/**', (route) => route.abort());
    await page.getByRole('button', { name: 'Transactions', exact: true }).click();
    await page.getByRole('button', { name: 'More transactions' }).click();
    await expect.poll(() => page.locator('.initials').count(), WAIT).toBeGreaterThan(10);
    await expect.poll(() => brokenImages(page), WAIT).toEqual([]);
  });

  it('checks the user’s own name (an identity check, and ownership of one account), and the Pay screen claims no payee check', async () => {
    const { gateway, page } = await app.openSignedIn();
    await page.getByRole('button', { name: 'Your name', exact: true }).click();
    await page.getByLabel('First name').fill('Aroha');
    await page.getByLabel('Last name').fill('Ngata');
    await page.getByRole('button', { name: 'Check my name' }).click();
    const result = page.locator('[data-outcome]');
    await expect.poll(() => result.getAttribute('data-outcome'), WAIT).toBe('MATCH');
    expect(await result.textContent()).toContain('Your banks know you by this name.');
    const sources = await result.getByRole('listitem').allTextContents();
    expect(sources.some((source) => source.startsWith('Holder name of'))).toBe(true);
    expect(sources.some((source) => source.startsWith('Name behind your login at'))).toBe(true);
    expect(gateway.sandbox.requests({ method: 'POST', path: '/v1/verify/name' })).toHaveLength(1);

    // Ownership of one account: the account-scoped form, and only its holder names count.
    const held = (holder: string) =>
      gateway.sandbox
        .world()
        .accounts.find((candidate) => candidate.sandboxShared && candidate.meta?.holder === holder)!;
    const fullName = held('AROHA MERE NGATA');
    await page.getByLabel('Check against').selectOption(fullName._id);
    await page.getByRole('button', { name: 'Check my name' }).click();
    await expect.poll(() => result.textContent(), WAIT).toContain(`You are a named holder of ${fullName.name}.`);
    for (const text of await result.getByRole('listitem').allTextContents()) expect(text).toMatch(/^Holder name of/);
    expect(gateway.sandbox.requests({ method: 'POST', path: `/v1/verify/name/${fullName._id}` })).toHaveLength(1);
    const initials = held('MS A M NGATA');
    await page.getByLabel('Check against').selectOption(initials._id);
    await page.getByRole('button', { name: 'Check my name' }).click();
    await expect.poll(() => result.getAttribute('data-outcome'), WAIT).toBe('PARTIAL_MATCH');
    expect(await result.textContent()).toContain(`Your last name matches a holder of ${initials.name}`);

    // Someone else's name: the check says so plainly, and says it never checks anyone else.
    await page.getByLabel('Check against').selectOption('');
    await page.getByLabel('First name').fill('James');
    await page.getByLabel('Last name').fill('Brown');
    await page.getByRole('button', { name: 'Check my name' }).click();
    await expect.poll(() => result.getAttribute('data-outcome'), WAIT).toBe('NONE');
    expect(await page.getByText('it cannot check anyone else’s name').count()).toBe(1);

    // Paying asks the platform for no name check, and the screen says none was made.
    await page.getByRole('button', { name: 'Pay', exact: true }).click();
    const pay = page.locator('section[aria-labelledby="pay-title"]');
    await pay.getByLabel('Payee’s name').waitFor();
    expect(await pay.textContent()).toContain('The app cannot check the payee’s name against this account number');
    expect(await pay.textContent()).not.toMatch(/name (matches|checked|partly)|check name/i);
    expect(await pay.getByRole('button', { name: /check/i }).count()).toBe(0);
  });
});

/** Every image on the page that failed or has no pixels (naturalWidth 0), once loading has settled. */
function brokenImages(page: Page): Promise<string[]> {
  return page.evaluate(() =>
    [...document.querySelectorAll('img')]
      .filter((image) => image.complete && image.naturalWidth === 0)
      .map((image) => image.src),
  );
}
