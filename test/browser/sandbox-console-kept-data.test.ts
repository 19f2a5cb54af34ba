import { describe, expect, it } from 'vitest';
import { chromiumAvailable, launchChromium } from '../support/chromium.js';
import { startGateway } from '../support/gateway.js';
import { signedInUser } from '../support/webhooks.js';

describe.skipIf(!chromiumAvailable())('the sandbox console in a real browser', { timeout: 45_000 }, () => {
  it('renders, under the demo user, whether the gateway serves their data from its store', async () => {
    const gateway = await startGateway({ USER_DATA_STORE: 'memory' });
    const user = await signedInUser(gateway);
    const demoUser = gateway.sandbox.webhookSubscriptions().find((hook) => hook.state === user.state)!.userId;
    const read = await user.browser.request(`${gateway.url}/graphql`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ query: 'query { accounts { id } }' }),
    });
    expect(read.status).toBe(200);

    const page = await (await (await launchChromium()).newContext()).newPage();
    await page.goto(gateway.sandbox.consoleUrl);
    const row = page.locator(`section[data-user-id="${demoUser}"] [data-kept-data]`);
    await expect.poll(() => row.textContent()).toMatch(/^Gateway: served from the gateway’s store \(age \d+s\)$/);

    const revoked = await user.browser.request(`${gateway.url}/graphql`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ query: 'mutation { revokeAllAccess { revoked } }' }),
    });
    expect(revoked.status).toBe(200);
    await gateway.waitForEvent('user-data-deleted', (event) => event.userId === user.appUser);
    await page.reload();
    await expect.poll(() => row.textContent()).toBe('Gateway: read from the platform on the next open');
  });
});
