import { describe, expect, it } from 'vitest';
import { chromiumAvailable } from '../support/chromium.js';
import { builtExampleApp, consent, markPage, samePage } from '../support/example-app.js';

const WAIT = { timeout: 10_000 };

/** The consumer controls in the example app, as the platform's accreditation rules list them, in headless Chromium. */
describe.skipIf(!chromiumAvailable())('the example app’s consumer controls', { timeout: 90_000 }, () => {
  const app = builtExampleApp();

  it('stops sharing one account, confirmed first: the platform receives DELETE /v1/accounts/{id} and the account leaves the lists', async () => {
    const { gateway, page } = await app.openSignedIn();
    await markPage(page);
    await page.getByRole('button', { name: 'Privacy' }).click();
    const connected = page.getByRole('list', { name: 'Connected accounts' }).getByRole('listitem');
    await connected.first().waitFor();
    const before = await connected.count();
    // Every shared account is listed, whatever its status.
    expect(before).toBe(gateway.sandbox.world().accounts.filter(sharedBy(gateway, 0)).length);
    expect(await page.getByText('Shared, but the bank no longer gives access').count()).toBe(1);

    const first = connected.first();
    const accountId = (await first.getAttribute('data-account-id'))!;
    const name = (await first.locator('strong').textContent())!;
    await first.getByRole('button', { name: `Stop sharing ${name}` }).click();
    expect(gateway.sandbox.requests({ method: 'DELETE', path: `/v1/accounts/${accountId}` })).toHaveLength(0);
    await first.getByRole('button', { name: 'Yes, stop sharing' }).click();

    await expect.poll(() => connected.count(), WAIT).toBe(before - 1);
    expect(await page.locator(`[data-account-id="${accountId}"]`).count()).toBe(0);
    // Said, not only done: the account does not just vanish.
    const said = page.getByRole('status').filter({ hasText: 'You stopped sharing' });
    expect(await said.textContent()).toBe(`You stopped sharing ${name}. Kete no longer sees it or pays from it.`);
    expect(gateway.sandbox.requests({ method: 'DELETE', path: `/v1/accounts/${accountId}` })).toHaveLength(1);
    // The other accounts, and the session, stay.
    expect(gateway.sandbox.requests({ method: 'DELETE', path: '/v1/token' })).toHaveLength(0);
    await page.getByRole('button', { name: 'Accounts', exact: true }).click();
    const listed = page.getByRole('list', { name: 'Accounts' }).getByRole('listitem');
    await expect.poll(() => listed.count(), WAIT).toBe(before - 1);
    expect(await page.locator(`[data-account-id="${accountId}"]`).count()).toBe(0);
    expect(await samePage(page)).toBe(true);
  });

  it('reconnects an INACTIVE account through the platform’s consent, in the window sign-in uses, and shows it ACTIVE without a reload', async () => {
    const { gateway, page, context } = await app.openSignedIn();
    await markPage(page);
    const inactive = page.locator('li[data-status="INACTIVE"]');
    await inactive.waitFor();
    const accountId = (await inactive.getAttribute('data-account-id'))!;
    const bank = gateway.sandbox.world().accounts.find((account) => account._id === accountId)!.connection.name;
    expect(await inactive.getByRole('alert').textContent()).toContain(`${bank} no longer gives access`);

    const opened = context.waitForEvent('page');
    await inactive.getByRole('button', { name: `Reconnect ${bank}` }).click();
    const popup = await opened;
    // Still signed in at the gateway: straight to the consumer information page, then the platform's consent.
    expect(context.pages()).toHaveLength(2);
    const closed = popup.waitForEvent('close', { timeout: 60_000 }); // before it can happen
    closed.catch(() => undefined); // a step before may fail first: no unhandled rejection then
    await consent(popup);
    await closed;

    const row = page.locator(`li[data-account-id="${accountId}"]`);
    await expect.poll(() => row.getAttribute('data-status'), WAIT).toBe('ACTIVE');
    expect(await row.getByRole('alert').count()).toBe(0);
    expect(await samePage(page)).toBe(true);
    // The platform's consent ran once more for this user: a second token, the first one revoked.
    expect(gateway.sandbox.requests({ method: 'POST', path: '/v1/token' })).toHaveLength(2);
  });
});

/** The demo world's accounts of the consent page's `index`th customer that are shared with the app. */
function sharedBy(gateway: { sandbox: { world(): { users: Array<{ _id: string }> } } }, index: number) {
  const userId = gateway.sandbox.world().users[index]!._id;
  return (account: { sandboxUserId: string; sandboxShared: boolean }) =>
    account.sandboxUserId === userId && account.sandboxShared;
}
