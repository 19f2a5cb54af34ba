import { describe, expect, it } from 'vitest';
import {
  AccountDocument,
  AccountsDocument,
  MeDocument,
  RefreshDocument,
  RevokeAccountDocument,
  RevokeAllAccessDocument,
  TransactionsDocument,
} from '../../__generated__/graphql.js';
import { Browser } from '../../support/browser.js';
import { execute, MFA_DEMO_USERS, signIn, signInToApp, startGateway } from '../../support/gateway.js';
import { platformStatus } from '../../support/platform-tokens.js';

describe('revocation', () => {
  it('revokes one account: it is gone from the list and by id', async () => {
    const gateway = await startGateway();
    const browser = await signIn(gateway);
    const before = (await execute(gateway, browser, AccountsDocument)).data!.accounts;
    const target = before.find((account) => account.name === 'Online Saver')!;

    const revoked = await execute(gateway, browser, RevokeAccountDocument, { id: target.id });
    expect(revoked.data!.revokeAccount).toEqual({ accountId: target.id });
    expect(gateway.sandbox.requests({ method: 'DELETE', path: `/v1/accounts/${target.id}` })).toHaveLength(1);

    const after = (await execute(gateway, browser, AccountsDocument)).data!.accounts;
    expect(after.map((a) => a.id)).toEqual(before.map((a) => a.id).filter((id) => id !== target.id));
    expect((await execute(gateway, browser, AccountDocument, { id: target.id })).data!.account).toBeNull();
    const transactions = await execute(gateway, browser, TransactionsDocument, { accountId: target.id, first: 5 });
    expect(transactions.errors![0]!.extensions!.code).toBe('NOT_FOUND');
  });

  it('revokes all access: the token dies upstream, the session ends, and the next query is UNAUTHENTICATED', async () => {
    const gateway = await startGateway();
    const browser = await signIn(gateway);
    const [token] = gateway.sandbox.issuedTokens();
    const other = await signIn(gateway); // a second session of the same app user: the same connection
    expect(gateway.sandbox.issuedTokens()).toEqual([token]);

    const response = await browser.request(`${gateway.url}/graphql`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ query: 'mutation { revokeAllAccess { revoked signedOut tokensRevoked tokensFailed } }' }),
    });
    expect(JSON.parse(response.text).data.revokeAllAccess).toEqual({
      revoked: true,
      signedOut: true,
      tokensRevoked: 1,
      tokensFailed: 0,
    });
    expect(response.headers.getSetCookie().join()).toMatch(/gw_session_\d+=;.*Max-Age=0/);
    expect(gateway.sandbox.requests({ method: 'DELETE', path: '/v1/token' })).toHaveLength(1);
    // The revocation is matched to the request that asked for it.
    expect(gateway.sandbox.requests({ method: 'DELETE', path: '/v1/token' })[0]!.headers['x-request-id']).toBe(
      response.headers.get('x-request-id'),
    );
    expect(await platformStatus(gateway, token!)).toBe(403);

    const coreCallsBefore = gateway.sandbox.requests({ service: 'core' }).length;
    expect((await execute(gateway, browser, MeDocument)).errors![0]!.extensions!.code).toBe('UNAUTHENTICATED');
    expect((await execute(gateway, other, MeDocument)).errors![0]!.extensions!.code).toBe('UNAUTHENTICATED');
    expect(gateway.sandbox.requests({ service: 'core' })).toHaveLength(coreCallsBefore);
    expect(await gateway.waitForEvent('user-data-deleted', () => true)).toMatchObject({ failures: [] });
    // The connection went with it: signing in again leads to the consumer information page and a new consent.
    const again = await signInToApp(new Browser(), gateway.sandbox, gateway.url, MFA_DEMO_USERS[0]!);
    expect(again.location).toContain('/auth/consumer-info');
  });

  it('reports a failed revocation as a failure and keeps the session so the user can retry', async () => {
    const gateway = await startGateway();
    const browser = await signIn(gateway);
    gateway.sandbox.setCoreFault({ status: 503, pathPrefix: '/v1/token' });
    const failed = await execute(gateway, browser, RevokeAllAccessDocument);
    expect(failed.data).toBeNull();
    expect(failed.errors![0]!.extensions!.code).toBe('UPSTREAM_UNAVAILABLE');
    expect(gateway.sandbox.requests({ method: 'DELETE', path: '/v1/token' })).toHaveLength(1); // never retried
    gateway.sandbox.setCoreFault({});
    expect((await execute(gateway, browser, MeDocument)).status).toBe(200);
  });

  it('ends the session on the next call after the token is revoked outside the app', async () => {
    const gateway = await startGateway();
    const browser = await signIn(gateway);
    const userId = (await execute(gateway, browser, MeDocument)).data!.me.id;
    gateway.sandbox.revokeUserTokens(userId);

    const response = await execute(gateway, browser, AccountsDocument);
    expect(response.errors![0]!.extensions).toEqual({ code: 'UNAUTHENTICATED', reason: 'ACCESS_REVOKED' });
    const next = await execute(gateway, browser, MeDocument);
    expect(next.status).toBe(401);
    expect(next.errors![0]!.extensions!.code).toBe('UNAUTHENTICATED');
  });
});

describe('refresh', () => {
  it('asks the platform with the bearer token, app id and Accept: application/json; a second within 5 minutes is RATE_LIMITED', async () => {
    const gateway = await startGateway();
    const browser = await signIn(gateway);
    const accountId = gateway.sandbox.world().accounts.find((account) => account.name === 'Everyday')!._id;

    const first = await execute(gateway, browser, RefreshDocument, { accountId });
    expect(first.errors).toBeUndefined();
    expect(first.data!.refresh.accountId).toBe(accountId);
    const [call] = gateway.sandbox.requests({ method: 'POST', path: `/v1/refresh/${accountId}` });
    expect(call!.headers).toMatchObject({
      authorization: expect.stringMatching(/^Bearer user_token_/),
      'x-service-id': gateway.sandbox.credentials.appToken,
      accept: 'application/json',
    });

    const second = await execute(gateway, browser, RefreshDocument, {});
    expect(second.errors![0]!.extensions).toMatchObject({
      code: 'RATE_LIMITED',
      retryAfterSeconds: expect.any(Number),
    });
    expect(gateway.sandbox.requests({ method: 'POST', path: '/v1/refresh' })).toHaveLength(1);
  });

  it('surfaces the platform message of a forbidden refresh and keeps the session', async () => {
    const gateway = await startGateway();
    const james = await signIn(gateway, 1);
    const response = await execute(gateway, james, RefreshDocument, {});
    expect(response.errors![0]).toMatchObject({
      message: 'Manual data refresh is not enabled for this user',
      extensions: { code: 'FORBIDDEN', reason: 'REFRESH_FORBIDDEN' },
    });
    expect((await execute(gateway, james, MeDocument)).status).toBe(200);
  });

  it('tells a dead token apart from a forbidden refresh', async () => {
    const gateway = await startGateway();
    const james = await signIn(gateway, 1);
    const userId = (await execute(gateway, james, MeDocument)).data!.me.id;
    gateway.sandbox.revokeUserTokens(userId);
    const response = await execute(gateway, james, RefreshDocument, {});
    expect(response.errors![0]!.extensions).toEqual({ code: 'UNAUTHENTICATED', reason: 'ACCESS_REVOKED' });
    expect((await execute(gateway, james, MeDocument)).status).toBe(401);
  });
});

describe('core upstream failures', () => {
  it('reports an upstream that hangs as UPSTREAM_TIMEOUT within the deadline', async () => {
    const gateway = await startGateway({ CORE_TIMEOUT_MS: '400' });
    const browser = await signIn(gateway);
    gateway.sandbox.setCoreFault({ delayMs: 60_000, pathPrefix: '/v1/accounts' });
    const started = performance.now();
    const response = await execute(gateway, browser, AccountsDocument);
    expect(response.errors![0]!.extensions).toMatchObject({ code: 'UPSTREAM_TIMEOUT', upstream: 'core' });
    expect(performance.now() - started).toBeLessThan(3_000);
  });

  it('retries an idempotent read after a transient 503, inside the deadline', async () => {
    const gateway = await startGateway();
    const browser = await signIn(gateway);
    gateway.sandbox.setCoreFault({ status: 503, pathPrefix: '/v1/accounts', times: 1 });
    const response = await execute(gateway, browser, AccountsDocument);
    expect(response.errors).toBeUndefined();
    expect(response.data!.accounts.length).toBeGreaterThan(0);
    expect(gateway.sandbox.requests({ method: 'GET', path: '/v1/accounts' })).toHaveLength(2);
  });

  it('never repeats a refresh after a 503', async () => {
    const gateway = await startGateway();
    const browser = await signIn(gateway);
    gateway.sandbox.setCoreFault({ status: 503, pathPrefix: '/v1/refresh', times: 1 });
    const response = await execute(gateway, browser, RefreshDocument, {});
    expect(response.errors![0]!.extensions!.code).toBe('UPSTREAM_UNAVAILABLE');
    expect(gateway.sandbox.requests({ method: 'POST', path: '/v1/refresh' })).toHaveLength(1);
  });

  it('gives up on a read that keeps failing, reporting UPSTREAM_UNAVAILABLE', async () => {
    const gateway = await startGateway();
    const browser = await signIn(gateway);
    gateway.sandbox.setCoreFault({ status: 502, pathPrefix: '/v1/accounts' });
    const response = await execute(gateway, browser, AccountsDocument);
    expect(response.errors![0]!.extensions).toMatchObject({ code: 'UPSTREAM_UNAVAILABLE', upstream: 'core' });
    expect(gateway.sandbox.requests({ method: 'GET', path: '/v1/accounts' })).toHaveLength(3);
  });
});
