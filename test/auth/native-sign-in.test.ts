import { print } from 'graphql';
import { describe, expect, it } from 'vitest';
import {
  AccountsDocument,
  CreatePaymentDocument,
  MeDocument,
  type CreatePaymentMutation,
} from '../__generated__/graphql.js';
import type { Browser } from '../support/browser.js';
import { appUserId, execute, signIn, startGateway, type TestGateway } from '../support/gateway.js';
import { bearerRequest, bearerSocket, claimsOf, headerOf, nativeSignIn } from '../support/native-app.js';
import { subscribe } from '../support/sockets.js';

const EMAIL = 'aroha@demo.example';
const PAYMENT_UPDATED = `subscription { paymentUpdated { code paymentId payment { id status final } } }`;
const DEVICES = 'query { devices { id kind client current } }';

async function paymentInput(gateway: TestGateway, token: string) {
  const me = (await bearerRequest(gateway.url, token, print(MeDocument))).data!.me as { id: string };
  const from = gateway.sandbox
    .world()
    .accounts.find((account) => account.sandboxUserId === me.id && account.attributes.includes('PAYMENT_FROM'))!;
  return { from: from._id, to: { name: 'Kiwi Plumbing Ltd', accountNumber: '12-3140-0412345-00' }, amount: 12.5 };
}

/** The app user signs in by cookie (and connects their bank), then on their phone as a native app. */
async function cookieAndPhone(gateway: TestGateway): Promise<{ browser: Browser; token: string }> {
  const browser = await signIn(gateway, 0);
  await gateway.waitForEvent('webhooks-registered');
  const { accessToken } = await nativeSignIn(gateway.sandbox, EMAIL);
  return { browser, token: accessToken };
}

describe('a native app, end to end against the sandbox', () => {
  it('signs in with PKCE and MFA, queries over HTTP, follows its payment over graphql-ws, and steps up with max_age=0', async () => {
    let offset = 0;
    const gateway = await startGateway(
      { MFA_MAX_AGE_SECONDS: '60' },
      { clock: () => Date.now() + offset, sandbox: { paymentSettleMs: 50 } },
    );
    const { browser, token } = await cookieAndPhone(gateway);
    // The sandbox provider's native client: an RFC 9068 token for this gateway, with the second factor.
    expect(headerOf(token)).toMatchObject({ typ: 'at+jwt', alg: 'RS256' });
    expect(claimsOf(token)).toMatchObject({
      aud: gateway.url,
      iss: gateway.sandbox.identity.issuer,
      client_id: gateway.sandbox.identity.nativeClientId,
      sub: appUserId(gateway, 0),
      amr: expect.arrayContaining(['otp']),
      auth_time: expect.any(Number),
      sid: expect.any(String),
    });
    const accounts = await bearerRequest(gateway.url, token, print(AccountsDocument));
    expect(accounts.errors).toBeUndefined();
    expect(accounts.data).toEqual((await execute(gateway, browser, AccountsDocument)).data);

    // Past MFA_MAX_AGE_SECONDS, money needs a step-up; a bearer client is told to authorize again.
    offset = 61_000;
    const input = await paymentInput(gateway, token);
    const stale = await bearerRequest(gateway.url, token, print(CreatePaymentDocument), { variables: { input } });
    expect(stale.errors?.[0]?.extensions).toEqual({
      code: 'STEP_UP_REQUIRED',
      authorize: { max_age: 0, prompt: 'login' },
    });
    const { accessToken: stepped } = await nativeSignIn(gateway.sandbox, EMAIL, { stepUp: true });
    expect(claimsOf(stepped).auth_time).toBeGreaterThan(claimsOf(token).auth_time as number);

    const { client } = bearerSocket(gateway.url, stepped);
    const events = await subscribe<{
      paymentUpdated: { code: string; paymentId: string; payment: { status: string; final: boolean } };
    }>(gateway, client, PAYMENT_UPDATED, 'PAYMENT');
    const created = await bearerRequest(gateway.url, stepped, print(CreatePaymentDocument), { variables: { input } });
    expect(created.errors).toBeUndefined();
    const paymentId = (created.data as CreatePaymentMutation).createPayment.payment.id;
    let event = (await events.next()).data!.paymentUpdated;
    while (!event.payment.final) event = (await events.next()).data!.paymentUpdated;
    expect(event.paymentId).toBe(paymentId);
  });

  it('lists the browser and the app among the devices, and ends the app from the browser: its tokens and socket with it', async () => {
    const gateway = await startGateway();
    const { browser, token } = await cookieAndPhone(gateway);
    const { client, closed } = bearerSocket(gateway.url, token);
    await subscribe(gateway, client, 'subscription { accountEvents { code } }', 'ACCOUNT');
    const listed = (await bearerRequest(gateway.url, token, DEVICES)).data!.devices as Array<Record<string, unknown>>;
    expect(listed).toEqual(
      expect.arrayContaining([
        { id: expect.any(String), kind: 'BROWSER', client: null, current: false },
        { id: expect.any(String), kind: 'APP', client: gateway.sandbox.identity.nativeClientId, current: true },
      ]),
    );
    const app = listed.find((device) => device.kind === 'APP')!;
    const ended = await browser.request(`${gateway.url}/graphql`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ query: `mutation { endDevice(id: "${String(app.id)}") }` }),
    });
    expect(JSON.parse(ended.text)).toEqual({ data: { endDevice: true } });
    expect((await closed).code).toBe(4401);
    const refused = await bearerRequest(gateway.url, token, print(MeDocument));
    expect(refused.errors?.[0]?.extensions).toEqual({ code: 'UNAUTHENTICATED', reason: 'ACCESS_ENDED' });
    // The browser carries on, and the app signs in again (a new token family) without trouble.
    expect((await execute(gateway, browser, MeDocument)).status).toBe(200);
    const again = await nativeSignIn(gateway.sandbox, EMAIL);
    expect((await bearerRequest(gateway.url, again.accessToken, print(MeDocument))).status).toBe(200);
  });

  it('signs out everywhere from the app: the browser session, every token and socket end', async () => {
    const gateway = await startGateway();
    const { browser, token } = await cookieAndPhone(gateway);
    const { client, closed } = bearerSocket(gateway.url, token);
    await subscribe(gateway, client, 'subscription { accountEvents { code } }', 'ACCOUNT');
    const out = await bearerRequest(gateway.url, token, 'mutation { signOutEverywhere }');
    expect(out.data).toEqual({ signOutEverywhere: true });
    expect((await closed).code).toBe(4401);
    expect((await bearerRequest(gateway.url, token, print(MeDocument))).status).toBe(401);
    expect((await execute(gateway, browser, MeDocument)).status).toBe(401);
  });

  it("ends the app's tokens on the platform's TOKEN DELETE and on the operator's sign-out", async () => {
    const gateway = await startGateway({ ADMIN_TOKEN: 'admin-token-for-tests-0123456789' });
    const { token } = await cookieAndPhone(gateway);
    const platformUser = (await bearerRequest(gateway.url, token, print(MeDocument))).data!.me as { id: string };
    gateway.sandbox.revokeUserTokens(platformUser.id);
    await gateway.waitForEvent('user-data-deleted');
    const refused = await bearerRequest(gateway.url, token, print(MeDocument));
    expect(refused.errors?.[0]?.extensions).toEqual({ code: 'UNAUTHENTICATED', reason: 'ACCESS_ENDED' });

    // `iat` counts whole seconds, so a token issued in the second access ended is refused too (on
    // the safe side): a person takes longer than that to sign in again, this test does not.
    await new Promise((resolve) => setTimeout(resolve, 1_001 - (Date.now() % 1_000)));
    const { accessToken } = await nativeSignIn(gateway.sandbox, EMAIL);
    expect((await bearerRequest(gateway.url, accessToken, 'query { devices { id } }')).status).toBe(200);
    const signedOut = await fetch(`${gateway.url}/admin/users/${encodeURIComponent(appUserId(gateway, 0))}/sign-out`, {
      method: 'POST',
      headers: { authorization: 'Bearer admin-token-for-tests-0123456789' },
    });
    expect(signedOut.status).toBe(200);
    const after = await bearerRequest(gateway.url, accessToken, 'query { devices { id } }');
    expect(after.errors?.[0]?.extensions).toEqual({ code: 'UNAUTHENTICATED', reason: 'ACCESS_ENDED' });
  });
});
