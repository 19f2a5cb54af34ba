import { describe, expect, it } from 'vitest';
import { forgeJwt } from '@open-finance-gateway/sandbox/testing';
import { appUserId, startGateway, type TestGateway } from '../../support/gateway.js';
import {
  multipartSubscription,
  revokeAllAccessAs,
  sseSubscription,
  type StreamReader,
} from '../../support/http-streams.js';
import { accessTokenClaims, nowSeconds } from '../../support/native-app.js';
import { sessionCookie } from '../../support/session-cookie.js';
import { signedInUser } from '../../support/webhooks.js';

const PAYMENTS = 'subscription { paymentUpdated { paymentId } }';
const TRANSPORTS = [
  { name: 'Apollo Client 4 over multipart HTTP', open: multipartSubscription },
  { name: 'graphql-sse createClient', open: sseSubscription },
] as const;

/** A signed-in, connected app user, and access tokens for them as the sandbox provider would issue. */
async function nativeUser() {
  const gateway = await startGateway();
  const { browser, userId } = await signedInUser(gateway);
  const now = nowSeconds;
  const token = (extra: Record<string, unknown> = {}) =>
    forgeJwt(accessTokenClaims(gateway, appUserId(gateway, 0), 'family-streams', extra));
  return { gateway, browser, token, now, userId };
}

/** How a stream ended or was refused: its code and reason. */
async function refusalOf(reader: StreamReader): Promise<Record<string, unknown> | undefined> {
  for (;;) {
    const item = await reader.next();
    if (item.kind === 'complete') return undefined;
    if (item.kind === 'error') {
      const error = item.error as {
        errors?: Array<{ extensions?: Record<string, unknown> }>;
        response?: Response;
        result?: { errors?: Array<{ extensions?: Record<string, unknown> }> };
      };
      if (error.errors?.[0]) return error.errors[0].extensions;
      if (error.result?.errors?.[0]) return error.result.errors[0].extensions;
      if (error.response)
        return ((await error.response.json()) as { errors: Array<{ extensions: Record<string, unknown> }> }).errors[0]!
          .extensions;
      return { unexpected: String(item.error) };
    }
    if (item.value.errors?.length) return item.value.errors[0]!.extensions;
  }
}

const platformCalls = (gateway: TestGateway) => gateway.sandbox.requests().length;

describe.each(TRANSPORTS)('subscriptions over HTTP with an access token: $name', ({ open }) => {
  it("follows a payment with the app's access token, no cookie", async () => {
    const { gateway, token, userId } = await nativeUser();
    const started = gateway.subscriptionsStarted(1, 'PAYMENT');
    const live = open(gateway, { authorization: `Bearer ${token()}` }, PAYMENTS);
    await started;
    const payment = gateway.sandbox.payments.createPayment(userId, { amount: 9 });
    expect((await live.reader.data<{ paymentUpdated: { paymentId: string } }>()).paymentUpdated.paymentId).toBe(
      payment._id,
    );
  });

  it('refuses an expired token with a coded 401 and no platform call', async () => {
    const { gateway, token, now } = await nativeUser();
    const before = platformCalls(gateway);
    const live = open(gateway, { authorization: `Bearer ${token({ iat: now() - 900, exp: now() - 300 })}` }, PAYMENTS);
    expect(await refusalOf(live.reader)).toMatchObject({ code: 'UNAUTHENTICATED', reason: 'TOKEN_EXPIRED' });
    expect(platformCalls(gateway)).toBe(before);
    expect(gateway.events('subscription-started')).toHaveLength(0);
  });

  it('ends the stream with UNAUTHENTICATED (TOKEN_EXPIRED) when its token expires', async () => {
    const { gateway, token, now } = await nativeUser();
    const started = gateway.subscriptionsStarted(1, 'PAYMENT');
    const live = open(gateway, { authorization: `Bearer ${token({ exp: now() + 2 })}` }, PAYMENTS);
    await started;
    expect(await refusalOf(live.reader)).toMatchObject({ code: 'UNAUTHENTICATED', reason: 'TOKEN_EXPIRED' });
  });

  it('ends the bearer stream when access ends from the cookie side (revokeAllAccess)', async () => {
    const { gateway, browser, token } = await nativeUser();
    const started = gateway.subscriptionsStarted(1, 'PAYMENT');
    const live = open(gateway, { authorization: `Bearer ${token()}` }, PAYMENTS);
    await started;
    expect(await revokeAllAccessAs(gateway, browser)).toEqual({ data: { revokeAllAccess: { revoked: true } } });
    expect(await refusalOf(live.reader)).toMatchObject({ code: 'UNAUTHENTICATED' });
  });

  it('refuses a cookie and a token together, and a token from a browser origin not allowed', async () => {
    const { gateway, browser, token } = await nativeUser();
    const cookie = sessionCookie(browser, gateway.url);
    const both = open(gateway, { authorization: `Bearer ${token()}`, cookie }, PAYMENTS);
    expect(await refusalOf(both.reader)).toMatchObject({ code: 'UNAUTHENTICATED', reason: 'AMBIGUOUS_CREDENTIALS' });
    const foreign = await fetch(`${gateway.url}/graphql/stream?query=${encodeURIComponent(PAYMENTS)}`, {
      headers: {
        authorization: `Bearer ${token()}`,
        accept: 'text/event-stream',
        origin: 'https://evil.example',
        'apollo-require-preflight': 'true',
      },
    });
    expect(foreign.status).toBe(403);
    expect(((await foreign.json()) as { errors: Array<{ extensions: unknown }> }).errors[0]!.extensions).toMatchObject({
      reason: 'ORIGIN_NOT_ALLOWED',
    });
    expect(gateway.events('subscription-started')).toHaveLength(0);
  });
});
