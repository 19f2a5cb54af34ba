import { describe, expect, it } from 'vitest';
import { DeleteMyAccountDocument, MeDocument } from '../../__generated__/graphql.js';
import { execute, signIn, startGateway } from '../../support/gateway.js';
import { socketClient } from '../../support/sockets.js';
import { signedInUser } from '../../support/webhooks.js';

describe('deleting the account with the app', () => {
  it('removes the webhooks, revokes every token, deletes everything held, closes sockets and signs out', async () => {
    const gateway = await startGateway();
    const { browser, userId, appUser } = await signedInUser(gateway);
    const other = await signIn(gateway); // another session of the same app user (the same connection)
    const hooksBefore = gateway.sandbox.webhookSubscriptions().filter((hook) => hook.userId === userId);
    expect(hooksBefore.length).toBeGreaterThan(0);
    const { closed } = socketClient(gateway, browser);

    const deleted = await execute(gateway, browser, DeleteMyAccountDocument);
    expect(deleted.data!.deleteMyAccount).toEqual({
      complete: true,
      accessEnded: true,
      webhooksRemoved: hooksBefore.length,
      tokensRevoked: 1,
      failures: [],
    });
    // The platform calls, in the order that needs the token: webhooks first, then the tokens.
    const calls = gateway.sandbox
      .requests({ service: 'core' })
      .filter((request) => request.method === 'DELETE')
      .map((request) => request.path.replace(/hook_\w+/, 'hook_…'));
    expect(calls).toEqual([...hooksBefore.map(() => '/v1/webhooks/hook_…'), '/v1/token']);
    expect(gateway.sandbox.webhookSubscriptions().filter((hook) => hook.userId === userId)).toEqual([]);
    expect(await gateway.waitForEvent('user-data-deleted', (event) => event.userId === appUser)).toMatchObject({
      failures: [],
    });
    expect(await closed).toMatchObject({ code: 4401 });
    expect((await execute(gateway, browser, MeDocument)).status).toBe(401);
    expect((await execute(gateway, other, MeDocument)).status).toBe(401);
  });

  it('retries a passing platform failure, and reports what still fails instead of claiming success', async () => {
    const gateway = await startGateway();
    const { browser } = await signedInUser(gateway);
    // One webhook deletion fails once (retried, then fine); the token revocation keeps failing.
    gateway.sandbox.setCoreFault({ status: 503, pathPrefix: '/v1/webhooks/', times: 1 });
    const first = await execute(gateway, browser, DeleteMyAccountDocument);
    expect(first.data!.deleteMyAccount.failures).toEqual([]);
    expect(first.data!.deleteMyAccount.complete).toBe(true);

    const again = await startGateway();
    const user = await signedInUser(again);
    again.sandbox.setCoreFault({ status: 503, pathPrefix: '/v1/token' });
    const failed = await execute(again, user.browser, DeleteMyAccountDocument);
    expect(failed.data!.deleteMyAccount).toMatchObject({
      complete: false,
      accessEnded: false,
      failures: [{ step: 'revoke-token', reason: 'the platform answered 503' }],
    });
    expect(again.sandbox.requests({ method: 'DELETE', path: '/v1/token' })).toHaveLength(3); // retried, then reported
    // Nothing local was deleted: the same session can try again once the platform is back.
    again.sandbox.setCoreFault({});
    expect((await execute(again, user.browser, MeDocument)).status).toBe(200);
    const retried = await execute(again, user.browser, DeleteMyAccountDocument);
    expect(retried.data!.deleteMyAccount).toMatchObject({ complete: true, accessEnded: true });
  });
});
