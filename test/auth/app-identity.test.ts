import { GraphQLError, type GraphQLField, type GraphQLFieldResolver } from 'graphql';
import { describe, expect, it } from 'vitest';
import {
  AccountsDocument,
  ConnectBankDocument,
  ConnectionDocument,
  CreatePaymentDocument,
  DeleteMyAccountDocument,
  EnrichDocument,
  MeDocument,
  type CreatePaymentInput,
} from '../__generated__/graphql.js';
import type { AccessState } from '../../src/graphql/context.js';
import { buildGatewaySchema } from '../../src/graphql/schema.js';
import { userTag } from '../../src/redis/redis-keys.js';
import { Browser } from '../support/browser.js';
import {
  appUserId,
  execute,
  MFA_DEMO_USERS,
  signIn,
  signInToApp,
  startConnection,
  startGateway,
  type TestGateway,
} from '../support/gateway.js';
import { signInAtProvider } from '../support/identity.js';
import { dumpKeys, REDIS_URL, testPrefix, testRedis, tokenKeysSetting } from '../support/redis.js';
import { sessionCookieValue } from '../support/session-cookie.js';
import { connectBank, signInOnly } from '../support/sign-in-steps.js';
import { socketClient, subscribe } from '../support/sockets.js';

const READER = 'reader@demo.example';

function codeOf(response: { errors?: Array<{ extensions?: Record<string, unknown> }> }): unknown {
  return response.errors?.[0]?.extensions?.code;
}

/** A payment from the connected user's own account (the sandbox's demo world). */
async function paymentFor(gateway: TestGateway, browser: Browser): Promise<CreatePaymentInput> {
  const me = (await execute(gateway, browser, MeDocument)).data!.me.id;
  const from = gateway.sandbox
    .world()
    .accounts.find((account) => account.sandboxUserId === me && account.attributes.includes('PAYMENT_FROM'))!;
  return { from: from._id, to: { name: 'Kiwi Plumbing Ltd', accountNumber: '12-3140-0412345-00' }, amount: 12.5 };
}

describe('app sign-in with multi-factor authentication', () => {
  it('signs in every combination the rules allow, each with a fresh second factor and, once connected, platform access', async () => {
    const gateway = await startGateway();
    for (const [index, email] of MFA_DEMO_USERS.entries()) {
      const browser = await signIn(gateway, index);
      const connection = (await execute(gateway, browser, ConnectionDocument)).data!.connection;
      expect(connection, email).toMatchObject({ connected: true, mfa: 'FRESH', connectedAt: expect.any(String) });
      expect(Date.parse(connection.mfaFreshUntil!) - Date.now()).toBeGreaterThan(7_100_000);
      expect((await execute(gateway, browser, MeDocument)).data?.me.id, email).toEqual(expect.any(String));
    }
    // The session keys on the app user (the provider's sub), never on a password or the platform's id.
    const started = gateway.events('webhooks-registered').map((event) => event.userId);
    expect(started).toEqual(MFA_DEMO_USERS.map((email) => appUserId(gateway, email)));
  });

  it('refuses a sign-in without a second factor on platform-connected fields, over HTTP and the socket', async () => {
    const gateway = await startGateway();
    const { browser, landed } = await signInOnly(gateway, READER, '?returnTo=%2Fgraphql');
    // Not offered the connection flow: connecting is platform-connected functionality too.
    expect(landed).toMatchObject({ status: 303, location: `${gateway.url}/graphql` });
    expect((await execute(gateway, browser, ConnectionDocument)).data!.connection).toMatchObject({
      connected: false,
      mfa: 'NONE',
      mfaFreshUntil: null,
    });
    const before = gateway.sandbox.requests({ service: 'core' }).length;
    const refusals = await Promise.all([
      execute(gateway, browser, AccountsDocument),
      execute(gateway, browser, MeDocument),
      execute(gateway, browser, EnrichDocument, { queries: [{ id: 'q', description: 'Z ENERGY' }] }),
      execute(gateway, browser, DeleteMyAccountDocument),
    ]);
    for (const refused of refusals) {
      expect(codeOf(refused)).toBe('MFA_REQUIRED');
      expect(refused.errors![0]!.extensions!.signInUrl).toBe(`${gateway.url}/auth/login?returnTo=%2Fgraphql`);
    }
    const consumerInfo = await startConnection(browser, gateway.url);
    expect(consumerInfo.status).toBe(403);
    expect(consumerInfo.text).toContain('MFA_REQUIRED');

    const { client } = socketClient(gateway, browser);
    const subscription = client.iterate({ query: 'subscription { paymentUpdated { code } }' });
    // Refused as the subscription starts (an error result, whichever way the client library surfaces it).
    const refusedLive = await subscription.next().then(
      (result) => result.value,
      (errors: unknown) => errors,
    );
    expect(JSON.stringify(refusedLive)).toContain('MFA_REQUIRED');
    const overSocket = await new Promise<unknown>((resolve) => {
      const result: unknown[] = [];
      client.subscribe(
        { query: '{ accounts { id } }' },
        { next: (value) => result.push(value), error: resolve, complete: () => resolve(result) },
      );
    });
    expect(JSON.stringify(overSocket)).toContain('MFA_REQUIRED');
    // Nothing reached the platform on the user's behalf, and no enrichment call was made.
    expect(gateway.sandbox.requests({ service: 'core' }).length).toBe(before);
    expect(gateway.sandbox.requests({ service: 'enrichment' })).toEqual([]);
  });

  it('gates every root field of the schema but connection, connectBank and the sign-in controls (no field can forget it)', async () => {
    const schema = await buildGatewaySchema({ enrichment: { maxQueriesPerRequest: 10 } });
    const access: AccessState = {
      mfa: 'none',
      mfaFreshUntil: undefined,
      policy: 'required',
      connected: true,
      links: { signInUrl: 'https://gw.test/auth/login', stepUpUrl: '', connectUrl: '' },
    };
    const context = new Proxy(
      { access },
      {
        get: (target, key) => {
          if (key in target) return target[key as keyof typeof target];
          throw new Error(`the field reached context.${String(key)} before the gate`);
        },
      },
    );
    const open: string[] = [];
    for (const type of [schema.getQueryType()!, schema.getMutationType()!, schema.getSubscriptionType()!]) {
      for (const field of Object.values(type.getFields()) as Array<GraphQLField<unknown, unknown>>) {
        const run = (type === schema.getSubscriptionType() ? field.subscribe : field.resolve) as GraphQLFieldResolver<
          unknown,
          unknown
        >;
        let outcome: unknown;
        try {
          outcome = await run(undefined, {}, context, {} as never);
        } catch (error) {
          outcome = error;
        }
        if (outcome instanceof GraphQLError && outcome.extensions.code === 'MFA_REQUIRED') continue;
        open.push(`${type.name}.${field.name}`);
      }
    }
    expect(open.sort()).toEqual([
      'Mutation.connectBank',
      'Mutation.endDevice',
      'Mutation.signOutEverywhere',
      'Query.bankConnection',
      'Query.connection',
      'Query.devices',
    ]);
  });

  it('MFA_POLICY=read-only lets a password-only user read, and nobody moves money', async () => {
    const gateway = await startGateway({ MFA_POLICY: 'read-only' });
    const reader = await signIn(gateway, READER);
    expect((await execute(gateway, reader, ConnectionDocument)).data!.connection).toMatchObject({
      connected: true,
      mfa: 'NONE',
    });
    expect((await execute(gateway, reader, AccountsDocument)).data!.accounts.length).toBeGreaterThan(0);
    const aroha = await signIn(gateway, 0);
    for (const browser of [reader, aroha]) {
      const refused = await execute(gateway, browser, CreatePaymentDocument, {
        input: await paymentFor(gateway, browser),
      });
      expect(refused.errors![0]!.extensions).toMatchObject({ code: 'FORBIDDEN', reason: 'READ_ONLY_APP' });
    }
    expect(gateway.sandbox.requests({ method: 'POST', path: '/v1/payments' })).toEqual([]);
  });

  it('MFA freshness on an injected clock: a payment at 1:59:59, STEP_UP_REQUIRED at 2:00:01, then the step-up round trip', async () => {
    let offset = 0;
    const gateway = await startGateway(
      { SESSION_IDLE_TIMEOUT_SECONDS: '86400' },
      { clock: () => Date.now() + offset, sandbox: { paymentSettleMs: 50 } },
    );
    // James signs in with password + SMS: the code comes from the outbox, whatever the clock says.
    const browser = await signIn(gateway, 1);
    const freshUntil = Date.parse(
      (await execute(gateway, browser, ConnectionDocument)).data!.connection.mfaFreshUntil!,
    );
    const input = await paymentFor(gateway, browser);

    offset = freshUntil - 1_000 - Date.now();
    const inTime = await execute(gateway, browser, CreatePaymentDocument, { input });
    expect(inTime.errors).toBeUndefined();
    expect(gateway.sandbox.requests({ method: 'POST', path: '/v1/payments' })).toHaveLength(1);

    offset = freshUntil + 1_000 - Date.now();
    const late = await execute(gateway, browser, CreatePaymentDocument, { input: { ...input, amount: 13 } });
    expect(late.errors![0]!.extensions).toEqual({
      code: 'STEP_UP_REQUIRED',
      stepUpUrl: `${gateway.url}/auth/step-up?returnTo=%2Fgraphql`,
    });
    expect(gateway.sandbox.requests({ method: 'POST', path: '/v1/payments' })).toHaveLength(1);
    // Reads carry on: the rules renew MFA before payments, not before reads.
    expect((await execute(gateway, browser, AccountsDocument)).errors).toBeUndefined();
    expect((await execute(gateway, browser, ConnectionDocument)).data!.connection.mfa).toBe('STALE');

    // The step-up: a fresh authentication (max_age=0), the same session renewed in place.
    const cookie = sessionCookieValue(browser, gateway.url);
    const stepUp = await browser.request(late.errors![0]!.extensions!.stepUpUrl as string);
    expect(stepUp.status).toBe(302);
    const authorize = new URL(stepUp.location!);
    expect(authorize.searchParams.get('max_age')).toBe('0');
    expect(authorize.searchParams.get('prompt')).toBe('login');
    const back = await signInAtProvider(
      browser,
      gateway.sandbox,
      authorize.href,
      MFA_DEMO_USERS[1]!,
      `${gateway.url}/auth/oidc/callback`,
    );
    expect(await browser.request(back.href)).toMatchObject({ status: 303, location: `${gateway.url}/graphql` });
    expect(sessionCookieValue(browser, gateway.url)).toBe(cookie);
    expect((await execute(gateway, browser, ConnectionDocument)).data!.connection.mfa).toBe('FRESH');
    const afterStepUp = await execute(gateway, browser, CreatePaymentDocument, { input: { ...input, amount: 13 } });
    expect(afterStepUp.errors).toBeUndefined();
    expect(gateway.sandbox.requests({ method: 'POST', path: '/v1/payments' })).toHaveLength(2);
  });

  it('keeps the connection for the app user: logout ends the session only, and a returning user is not asked to consent again', async () => {
    const gateway = await startGateway();
    const first = await signIn(gateway, 0);
    const me = (await execute(gateway, first, MeDocument)).data!.me.id;
    const exchanges = () => gateway.sandbox.requests({ method: 'POST', path: '/v1/token' }).length;
    expect(exchanges()).toBe(1);

    const logout = await first.request(`${gateway.url}/auth/logout`, {
      method: 'POST',
      headers: { origin: gateway.url },
    });
    expect(logout.status).toBe(204);
    expect((await execute(gateway, first, MeDocument)).status).toBe(401);
    expect(gateway.sandbox.requests({ method: 'DELETE', path: '/v1/token' })).toEqual([]);

    const { browser: returning, landed } = await signInOnly(gateway, 0, '?returnTo=%2Fgraphql');
    // Straight back: no consumer information page, no consent, no new token.
    expect(landed).toMatchObject({ status: 303, location: `${gateway.url}/graphql` });
    expect((await execute(gateway, returning, MeDocument)).data!.me.id).toBe(me);
    expect(exchanges()).toBe(1);
  });

  it('a signed-in user who has not connected: connection says so, platform fields are NOT_CONNECTED, connectBank leads to the consumer information page', async () => {
    const gateway = await startGateway();
    const { browser, landed } = await signInOnly(gateway, 2, '?returnTo=%2Fapp');
    expect(landed).toMatchObject({ status: 303, location: `${gateway.url}/auth/consumer-info?returnTo=%2Fapp` });
    const connection = (await execute(gateway, browser, ConnectionDocument)).data!.connection;
    expect(connection).toMatchObject({
      connected: false,
      connectedAt: null,
      mfa: 'FRESH',
      connectUrl: `${gateway.url}/auth/consumer-info?returnTo=%2Fgraphql`,
    });
    const accounts = await execute(gateway, browser, AccountsDocument);
    expect(accounts.errors![0]!.extensions).toEqual({ code: 'NOT_CONNECTED', connectUrl: connection.connectUrl });
    expect((await execute(gateway, browser, ConnectBankDocument)).data!.connectBank).toBe(connection.connectUrl);
    // Enrichment needs no connection.
    expect(
      (await execute(gateway, browser, EnrichDocument, { queries: [{ id: 'q', description: 'Z ENERGY' }] })).errors,
    ).toBeUndefined();

    const page = await browser.request(connection.connectUrl);
    expect(page.status).toBe(200);
    expect(await connectBank(browser, gateway.url, { userIndex: 2 })).toMatchObject({
      status: 303,
      location: `${gateway.url}/graphql`,
    });
    expect((await execute(gateway, browser, ConnectionDocument)).data!.connection.connected).toBe(true);
  });

  it('deleteMyAccount works for a user who never connected, and removes the connection of one who did', async () => {
    const gateway = await startGateway();
    const { browser: unconnected } = await signInOnly(gateway, 1);
    expect((await execute(gateway, unconnected, DeleteMyAccountDocument)).data!.deleteMyAccount).toEqual({
      complete: true,
      accessEnded: true,
      webhooksRemoved: 0,
      tokensRevoked: 0,
      failures: [],
    });
    expect(gateway.sandbox.requests({ service: 'core' })).toEqual([]);
    expect((await execute(gateway, unconnected, ConnectionDocument)).status).toBe(401);

    const connected = await signIn(gateway, 0);
    expect((await execute(gateway, connected, DeleteMyAccountDocument)).data!.deleteMyAccount.complete).toBe(true);
    // Signing in again starts from the consumer information page: the connection is gone.
    const { landed: again } = await signInOnly(gateway);
    expect(again.location).toContain('/auth/consumer-info');
  });

  it('a socket opened before the user connected their bank serves them once they have', async () => {
    const gateway = await startGateway();
    const { browser } = await signInOnly(gateway);
    const { client } = socketClient(gateway, browser);
    const query = 'subscription { paymentUpdated { code } }';
    const before = await client
      .iterate({ query })
      .next()
      .then(
        (result) => result.value,
        (errors: unknown) => errors,
      );
    expect(JSON.stringify(before)).toContain('NOT_CONNECTED');
    await connectBank(browser, gateway.url);
    // Resolves once the gateway has started live delivery on the same socket.
    await subscribe(gateway, client, query, 'PAYMENT');
  });

  it('keeps the connection on Redis encrypted, and deleteMyAccount leaves none of the user\u2019s keys', async () => {
    const prefix = testPrefix();
    const gateway = await startGateway({
      REDIS_URL,
      REDIS_KEY_PREFIX: prefix,
      TOKEN_ENCRYPTION_KEYS: tokenKeysSetting(),
    });
    const browser = await signIn(gateway, 0);
    const [token] = gateway.sandbox.issuedTokens();
    const tag = userTag(appUserId(gateway, 0));
    const held = await dumpKeys(prefix);
    expect(held.map(([key]) => key)).toContainEqual(`${prefix}{u:${tag}}:connection`);
    expect(held.some(([, value]) => value.includes(token!))).toBe(false);

    expect((await execute(gateway, browser, DeleteMyAccountDocument)).data!.deleteMyAccount.complete).toBe(true);
    await gateway.waitForEvent('user-data-deleted', (event) => event.userId === appUserId(gateway, 0));
    // The event stream is kept empty for its retention (so cursors never repeat), and each ended
    // session leaves a tombstone (a bare marker, so a late write cannot bring the session back)
    // that expires when the session would have; the instant access ended stays as long as an access
    // token issued before it could live, so none counts again; nothing else of the user's stays.
    const left = (await dumpKeys(prefix)).filter(([key]) => key.includes(tag));
    const tombstones = left.filter(([key]) => key.endsWith(':ended'));
    const kept = [':events', ':ended', ':access-ended'];
    expect(left.filter(([key]) => !kept.some((suffix) => key.endsWith(suffix)))).toEqual([]);
    const redis = testRedis();
    const accessEnded = left.find(([key]) => key.endsWith(':access-ended'));
    expect(accessEnded).toBeDefined();
    expect(Object.values(await redis.hgetall(accessEnded![0])).every((value) => /^\d+$/.test(value))).toBe(true);
    expect(await redis.pttl(accessEnded![0])).toBeGreaterThan(0);
    for (const [key, value] of tombstones) {
      expect(value).not.toContain(token!);
      expect(value.length).toBeLessThanOrEqual(16);
      expect(await redis.pttl(key)).toBeGreaterThan(0);
    }
  });

  it('revokes a bank connection whose user has not signed in for BANK_CONNECTION_IDLE_DAYS, and deletes what was held', async () => {
    let offset = 0;
    const gateway = await startGateway(
      { BANK_CONNECTION_IDLE_DAYS: '30' },
      { clock: () => Date.now() + offset, bankConnectionSweepIntervalMs: 50 },
    );
    const active = await signIn(gateway, 0);
    const idle = await signIn(gateway, 1);
    const [, idleToken] = gateway.sandbox.issuedTokens();
    // Aroha signs in again on day 20; James does not.
    offset = 20 * 86_400_000;
    expect((await signInOnly(gateway)).landed.location).toBe(`${gateway.url}/graphql`);
    offset = 30 * 86_400_000 + 60_000;
    const deleted = await gateway.waitForEvent('user-data-deleted', (event) => event.userId === appUserId(gateway, 1));
    expect(deleted.failures).toEqual([]);
    const revocations = gateway.sandbox.requests({ method: 'DELETE', path: '/v1/token' });
    expect(revocations.map((request) => request.headers.authorization)).toEqual([`Bearer ${idleToken}`]);
    expect((await execute(gateway, idle, MeDocument)).status).toBe(401);
    const { landed: back } = await signInOnly(gateway, 1);
    expect(back.location).toContain('/auth/consumer-info');
    // The user who signed in on day 20 is still connected.
    expect((await signInToApp(active, gateway.sandbox, gateway.url, MFA_DEMO_USERS[0]!)).location).toBe(
      `${gateway.url}/graphql`,
    );
  });

  it('revokes, at a graceful stop, the connections a memory-only gateway would forget; on Redis none', async () => {
    const memory = await startGateway();
    await signIn(memory, 0);
    await signIn(memory, 1);
    const tokens = memory.sandbox.issuedTokens();
    expect(tokens).toHaveLength(2);
    await memory.app.stop();
    const revoked = memory.sandbox.requests({ method: 'DELETE', path: '/v1/token' });
    expect(revoked.map((request) => String(request.headers.authorization)).sort()).toEqual(
      tokens.map((token) => `Bearer ${token}`).sort(),
    );

    const shared = await startGateway({
      REDIS_URL,
      REDIS_KEY_PREFIX: testPrefix(),
      TOKEN_ENCRYPTION_KEYS: tokenKeysSetting(),
    });
    await signIn(shared, 0);
    await shared.app.stop();
    expect(shared.sandbox.requests({ method: 'DELETE', path: '/v1/token' })).toEqual([]);
  });

  it('refuses a forged or replayed sign-in callback, and reports an unreachable provider', async () => {
    const gateway = await startGateway();
    const forged = await new Browser().request(`${gateway.url}/auth/oidc/callback?state=forged&code=x`);
    expect(forged.status).toBe(400);
    expect(forged.text).toContain('OAUTH_STATE_UNKNOWN');

    const browser = new Browser();
    const login = await browser.request(`${gateway.url}/auth/login`);
    const back = await signInAtProvider(
      browser,
      gateway.sandbox,
      login.location!,
      MFA_DEMO_USERS[0]!,
      `${gateway.url}/auth/oidc/callback`,
    );
    expect((await browser.request(back.href)).status).toBe(303);
    const replayed = await browser.request(back.href);
    expect(replayed.status).toBe(400);
    expect(replayed.text).toContain('OAUTH_STATE_UNKNOWN');
    // A provider's own refusal is shown as such.
    const login2 = await browser.request(`${gateway.url}/auth/login`);
    const state = new URL(login2.location!).searchParams.get('state')!;
    const denied = await browser.request(`${gateway.url}/auth/oidc/callback?error=access_denied&state=${state}`);
    expect(denied.status).toBe(400);
    expect(denied.text).toContain('SIGN_IN_REFUSED');

    const unreachable = await startGateway({
      OIDC_ISSUER: 'http://127.0.0.1:9',
      OIDC_CLIENT_ID: 'gateway',
      OIDC_CLIENT_SECRET: 'unreachable-secret',
    });
    const refused = await new Browser().request(`${unreachable.url}/auth/login`);
    expect(refused.status).toBe(502);
    expect(refused.text).toContain('IDENTITY_PROVIDER_UNAVAILABLE');
  });
});
