import { print } from 'graphql';
import { describe, expect, it } from 'vitest';
import { AccountsDocument, MeDocument } from '../__generated__/graphql.js';
import { deployment, signInVia } from '../support/deployment.js';
import { MFA_DEMO_USERS } from '../support/gateway.js';
import { bearerRequest, bearerSocket, nativeSignIn } from '../support/native-app.js';
import { REDIS_URL } from '../support/redis.js';

/**
 * Access tokens in a deployment: two gateway processes on one Redis. A device's session record
 * (its encrypted platform token, its client) and the instants access ended are shared, so a token
 * that ends on one instance is refused on the other at once, and its sockets there close.
 */
describe('access tokens across instances', { timeout: 60_000 }, () => {
  it('serves a device on either instance, and ending access on one refuses its token on the other at once', async () => {
    const deployed = await deployment(2, { REDIS_URL, NATIVE_CLIENT_IDS: 'nz.sandbox.native' });
    const [a, b] = deployed.instances as [(typeof deployed.instances)[0], (typeof deployed.instances)[0]];
    deployed.sandbox.identity.registerResource(deployed.publicUrl);
    await signInVia(deployed, a, a);
    const { accessToken } = await nativeSignIn(deployed.sandbox, MFA_DEMO_USERS[0]!);

    const onB = await bearerRequest(b.url, accessToken, print(AccountsDocument));
    expect(onB.errors).toBeUndefined();
    expect((onB.data!.accounts as unknown[]).length).toBeGreaterThan(0);
    const devices = await bearerRequest(a.url, accessToken, 'query { devices { kind client current } }');
    expect(devices.data!.devices).toEqual(
      expect.arrayContaining([{ kind: 'APP', client: 'nz.sandbox.native', current: true }]),
    );

    const { client, closed } = bearerSocket(b.url, accessToken);
    const started = b.events.waitFor('subscription-started');
    const ignore = () => undefined;
    client.subscribe(
      { query: 'subscription { accountEvents { code } }' },
      { next: ignore, error: ignore, complete: ignore },
    );
    await started;
    expect((await bearerRequest(a.url, accessToken, 'mutation { signOutEverywhere }')).data).toEqual({
      signOutEverywhere: true,
    });
    const refused = await bearerRequest(b.url, accessToken, print(MeDocument));
    expect(refused.errors?.[0]?.extensions).toEqual({ code: 'UNAUTHENTICATED', reason: 'ACCESS_ENDED' });
    expect((await closed).code).toBe(4401);
  });
});
