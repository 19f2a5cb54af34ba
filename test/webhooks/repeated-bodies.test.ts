import { describe, expect, it } from 'vitest';
import type { Browser } from '../support/browser.js';
import { startGateway, type TestGateway } from '../support/gateway.js';
import { multipartSubscription, sseSubscription, type StreamReader } from '../support/http-streams.js';
import { track } from '../support/leftovers.js';
import { REDIS_URL, testPrefix, tokenKeysSetting, USER_DATA_STORES } from '../support/redis.js';
import { sessionCookie } from '../support/session-cookie.js';
import { socketClient, subscribe } from '../support/sockets.js';
import { deliver, signedHeaders, signedInUser } from '../support/webhooks.js';

const ACCOUNT_EVENTS = `subscription ($accountId: ID) {
  accountEvents(accountId: $accountId) { code updatedFields account { id balance { current } } }
}`;

type AccountEvent = { accountEvents: { code: string; account: { balance: { current: number } } } };

const STORES = [
  ...USER_DATA_STORES,
  [
    'redis, the store off',
    () => ({ REDIS_URL, REDIS_KEY_PREFIX: testPrefix(), TOKEN_ENCRYPTION_KEYS: tokenKeysSetting() }),
  ],
] as const;

/** What the platform sends for every balance change of an account: no new state, no timestamp. */
const balanceChanged = (state: string, accountId: string) =>
  JSON.stringify({
    webhook_type: 'ACCOUNT',
    webhook_code: 'UPDATE',
    state,
    item_id: accountId,
    updated_fields: ['balance'],
  });

const cookieOf = (gateway: TestGateway, browser: Browser) => sessionCookie(browser, gateway.url);

/** The account's balance on every transport's subscription, each the next result it gives. */
async function balancesSeen(
  socket: Awaited<ReturnType<typeof subscribe<AccountEvent>>>,
  streams: StreamReader[],
): Promise<number[]> {
  const overSocket = (await socket.next()).data!.accountEvents.account.balance.current;
  const overHttp = await Promise.all(
    streams.map(async (reader) => (await reader.data<AccountEvent>()).accountEvents.account.balance.current),
  );
  return [overSocket, ...overHttp];
}

describe.each(STORES)('a webhook that names a change without its new state (%s)', (_name, env) => {
  it('publishes each of two balance changes sent as identical ACCOUNT UPDATE bodies, on graphql-ws, multipart and SSE, and a redelivery once', async () => {
    const gateway = await startGateway(env());
    const { browser, userId, state } = await signedInUser(gateway);
    const account = gateway.sandbox.world().accounts.find((row) => row.sandboxUserId === userId && row.sandboxShared)!;
    const variables = { accountId: account._id };
    const cookie = cookieOf(gateway, browser);
    const { client } = socketClient(gateway, browser);
    const socket = await subscribe<AccountEvent>(gateway, client, ACCOUNT_EVENTS, 'ACCOUNT', variables);
    const streamsStarted = gateway.subscriptionsStarted(2, 'ACCOUNT');
    const streams = [
      multipartSubscription(gateway, { cookie }, ACCOUNT_EVENTS, variables).reader,
      sseSubscription(gateway, { cookie }, ACCOUNT_EVENTS, variables).reader,
    ];
    await streamsStarted;
    const body = balanceChanged(state, account._id);

    account.balance.current = 1_111.11;
    expect(await deliver(gateway, body, signedHeaders(gateway, body))).toEqual({
      status: 200,
      body: { status: 'published' },
    });
    expect(await balancesSeen(socket, streams)).toEqual([1_111.11, 1_111.11, 1_111.11]);

    // The platform did not hear the 200 and delivers the same attempt again: nothing new to publish.
    expect(await deliver(gateway, body, signedHeaders(gateway, body))).toEqual({
      status: 200,
      body: { status: 'duplicate' },
    });

    // A second change a moment later: the same bytes, a new balance.
    account.balance.current = 2_222.22;
    expect(await deliver(gateway, body, signedHeaders(gateway, body))).toEqual({
      status: 200,
      body: { status: 'published' },
    });
    // The next result each transport gives is the second change (the redelivery published nothing).
    expect(await balancesSeen(socket, streams)).toEqual([2_222.22, 2_222.22, 2_222.22]);
    expect(gateway.published.filter((event) => event.type === 'ACCOUNT')).toHaveLength(2);
  });
});

describe.each(USER_DATA_STORES)('a repeated body that arrives while the first is processed (%s)', (_name, env) => {
  it('waits for the first and is processed itself: both answered 200 within 5 s, and both balances reach the subscription', async () => {
    const gateway = await startGateway(env());
    const { browser, userId, state } = await signedInUser(gateway);
    const account = gateway.sandbox.world().accounts.find((row) => row.sandboxUserId === userId && row.sandboxShared)!;
    const { client } = socketClient(gateway, browser);
    const socket = await subscribe<AccountEvent>(gateway, client, ACCOUNT_EVENTS, 'ACCOUNT', {
      accountId: account._id,
    });
    const body = balanceChanged(state, account._id);
    // Each read of the account takes a second; the test changes the balance as each read arrives.
    const readsArriving: Array<() => void> = [];
    track(
      gateway.sandbox.onRequest((request) => {
        if (request.path === `/v1/accounts/${account._id}`) readsArriving.shift()?.();
      }),
    );
    const readArrives = () => new Promise<void>((resolve) => readsArriving.push(resolve));
    expect((await deliver(gateway, body, signedHeaders(gateway, body))).status).toBe(200); // the signing key fetched
    await socket.next();
    gateway.sandbox.setCoreFault({ delayMs: 1_000, pathPrefix: `/v1/accounts/${account._id}` });

    const firstRead = readArrives();
    const first = deliver(gateway, body, signedHeaders(gateway, body));
    await firstRead;
    const before = account.balance.current;
    account.balance.current = before + 1; // what the first read answers
    const secondRead = readArrives();
    const started = Date.now();
    const second = deliver(gateway, body, signedHeaders(gateway, body));
    await Promise.race([secondRead, second]);
    account.balance.current = before + 2; // what the second read answers
    expect(await first).toEqual({ status: 200, body: { status: 'published' } });
    expect(await second).toEqual({ status: 200, body: { status: 'published' } });
    expect(Date.now() - started).toBeLessThan(5_000);
    expect((await socket.next()).data!.accountEvents.account.balance.current).toBe(before + 1);
    expect((await socket.next()).data!.accountEvents.account.balance.current).toBe(before + 2);
  });
});

describe('a webhook whose read of what it names is slow', () => {
  it('is answered within the platform\u2019s 5 s: what it names is dropped, published as unknown, and read by the next read', async () => {
    const gateway = await startGateway({ USER_DATA_STORE: 'memory' });
    const { browser, userId, state } = await signedInUser(gateway);
    const account = gateway.sandbox.world().accounts.find((row) => row.sandboxUserId === userId && row.sandboxShared)!;
    const balance = async () => {
      const response = await browser.request(`${gateway.url}/graphql`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ query: `{ account(id: "${account._id}") { balance { current } } }` }),
      });
      return (JSON.parse(response.text) as { data: { account: { balance: { current: number } } } }).data.account.balance
        .current;
    };
    const body = balanceChanged(state, account._id);
    await balance(); // kept
    expect((await deliver(gateway, body, signedHeaders(gateway, body))).status).toBe(200); // the signing key fetched
    account.balance.current = 3_333.33;
    gateway.sandbox.setCoreFault({ delayMs: 30_000, pathPrefix: '/v1/accounts/' });
    const started = Date.now();
    expect(await deliver(gateway, body, signedHeaders(gateway, body))).toEqual({
      status: 200,
      body: { status: 'published' },
    });
    expect(Date.now() - started).toBeLessThan(5_000);
    gateway.sandbox.setCoreFault({});
    expect(await balance()).toBe(3_333.33);
  });
});
