import type { Page } from 'playwright-core';
import { expect } from 'vitest';

/**
 * What a person checks on the example app's screens, shared by the browser tests and the first-run
 * journey (which imports nothing that needs a build first: keep this file to Playwright and vitest).
 */

/** The accounts list shows more than one account, the first with a balance in dollars. */
export async function expectAccountsWithBalances(page: Page): Promise<void> {
  const accounts = page.getByRole('list', { name: 'Accounts' }).getByRole('listitem');
  await accounts.first().waitFor();
  expect(await accounts.count()).toBeGreaterThan(1);
  expect(
    await page
      .getByLabel(/^Balance of /)
      .first()
      .textContent(),
  ).toMatch(/\$\d/);
}
