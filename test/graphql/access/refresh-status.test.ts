import { describe, expect, it } from 'vitest';
import { RefreshDocument, RefreshStatusDocument } from '../../__generated__/graphql.js';
import { execute, startGateway } from '../../support/gateway.js';
import { deliver, signedHeaders, signedInUser } from '../../support/webhooks.js';

describe('refreshStatus', () => {
  it('shows a refresh running from the request until the platform\u2019s first ACCOUNT webhook answers it', async () => {
    const gateway = await startGateway({ USER_DATA_STORE: 'memory' });
    const { browser, state } = await signedInUser(gateway);
    // The platform's own answers go nowhere, so the test delivers the one that ends the refresh.
    gateway.sandbox.setWebhookUrl('http://127.0.0.1:9/webhooks');
    expect((await execute(gateway, browser, RefreshStatusDocument)).data!.refreshStatus).toEqual({
      running: false,
      requestedAt: null,
      accountId: null,
    });
    const accountId = gateway.sandbox.world().accounts.find((account) => account.name === 'Everyday')!._id;
    const asked = (await execute(gateway, browser, RefreshDocument, { accountId })).data!.refresh;
    expect((await execute(gateway, browser, RefreshStatusDocument)).data!.refreshStatus).toEqual({
      running: true,
      requestedAt: asked.requestedAt,
      accountId,
    });
    const body = JSON.stringify({
      webhook_type: 'ACCOUNT',
      webhook_code: 'UPDATE',
      state,
      item_id: accountId,
      updated_fields: ['balance', 'refreshed'],
    });
    const answer = await deliver(gateway, body, signedHeaders(gateway, body));
    expect(answer.status).toBe(200);
    expect((await execute(gateway, browser, RefreshStatusDocument)).data!.refreshStatus.running).toBe(false);
  });

  it('never shows one running with the store off (the gateway keeps no note of it)', async () => {
    const gateway = await startGateway();
    const { browser } = await signedInUser(gateway);
    expect((await execute(gateway, browser, RefreshDocument, {})).errors).toBeUndefined();
    expect((await execute(gateway, browser, RefreshStatusDocument)).data!.refreshStatus.running).toBe(false);
  });
});
