import { describe, expect, it } from 'vitest';
import { userTag } from '../../src/redis/redis-keys.js';
import { startGateway } from '../support/gateway.js';
import { multipartSubscription, sseSubscription } from '../support/http-streams.js';
import { redisUserDataEnv, testPrefix, testRedis, USER_DATA_STORES } from '../support/redis.js';
import { sessionCookie } from '../support/session-cookie.js';
import { socketClient, subscribe } from '../support/sockets.js';
import { syncPlatform as platform, sync, SYNC_EVENTS, syncAll, type Delta } from '../support/transaction-sync.js';
import { signedInUser } from '../support/webhooks.js';

describe.each(USER_DATA_STORES)('transaction sync (%s)', (_name, env) => {
  it('the first sync gives every settled row once, page by page; after ten webhooks the delta is exactly what they added, changed and removed', async () => {
    const gateway = await startGateway(env());
    const { browser, userId, state } = await signedInUser(gateway);
    const at = platform(gateway, userId, state);
    const first = await syncAll(gateway, browser, undefined, 120);
    expect(first.modified).toEqual([]);
    expect(first.removed).toEqual([]);
    expect(first.added.map((row) => row.id).sort()).toEqual(
      at
        .rows()
        .map((row) => row._id)
        .sort(),
    );

    // Ten webhooks: four new rows, three changed (one of them new since), two removed, a balance.
    const existing = at.rows().slice(5, 10);
    const added = [await at.add(0), await at.add(1), await at.add(0), await at.add(2)];
    const modified = [
      await at.modify(existing[0]!._id),
      await at.modify(existing[1]!._id),
      await at.modify(added[0]!._id),
    ];
    const removed = [await at.remove(existing[2]!._id), await at.remove(added[3]!._id)];
    await at.balance(0);

    const delta = await syncAll(gateway, browser, first.cursor);
    const byId = <T extends { id: string }>(rows: T[]) => [...rows].sort((a, b) => (a.id < b.id ? -1 : 1));
    // Added then changed: added (as it is now); added then removed: never there for the app.
    expect(byId(delta.added)).toEqual(
      byId(added.slice(0, 3).map((row) => ({ id: row._id, amount: row.amount, description: row.description }))),
    );
    expect(byId(delta.modified)).toEqual(
      byId(modified.slice(0, 2).map((row) => ({ id: row._id, amount: row.amount, description: row.description }))),
    );
    expect(delta.removed).toEqual([{ id: removed[0]!._id, accountId: removed[0]!._account }]);

    // Nothing since: an empty answer, the same cursor back.
    const quiet = await sync(gateway, browser, delta.cursor);
    expect(quiet.data!.transactionsSync).toMatchObject({ added: [], modified: [], removed: [], hasMore: false });
  }, 60_000);

  it('pushes the same deltas to a subscription: first the catch-up from its cursor, then each change as it is made', async () => {
    const gateway = await startGateway(env());
    const { browser, userId, state } = await signedInUser(gateway);
    const at = platform(gateway, userId, state);
    const { cursor } = await syncAll(gateway, browser, undefined, 500);
    const missed = await at.add(0); // while the app was closed
    const { client } = socketClient(gateway, browser);
    const live = await subscribe<{ transactionsSync: Delta }>(gateway, client, SYNC_EVENTS, 'TRANSACTION_SYNC', {
      cursor,
    });
    const catchUp = (await live.next()).data!.transactionsSync;
    expect(catchUp).toMatchObject({ added: [{ id: missed._id, amount: missed.amount }], modified: [], removed: [] });
    expect(catchUp.hasMore).toBe(false);

    const arrived = await at.add(1);
    expect((await live.next()).data!.transactionsSync).toMatchObject({
      added: [{ id: arrived._id, amount: arrived.amount }],
      modified: [],
      removed: [],
    });
    const gone = await at.remove(arrived._id);
    const pushed = (await live.next()).data!.transactionsSync;
    expect(pushed).toMatchObject({ added: [], modified: [], removed: [{ id: gone._id }] });
    // The last pushed cursor is where a query (or a new subscription) continues: nothing new since.
    const after = await sync(gateway, browser, pushed.nextCursor);
    expect(after.data!.transactionsSync).toMatchObject({ added: [], modified: [], removed: [], hasMore: false });
  }, 60_000);

  it('pushes the same over HTTP subscription streams (multipart and SSE)', async () => {
    const gateway = await startGateway(env());
    const { browser, userId, state } = await signedInUser(gateway);
    const at = platform(gateway, userId, state);
    const { cursor } = await syncAll(gateway, browser, undefined, 500);
    const cookie = sessionCookie(browser, gateway.url);
    const started = gateway.subscriptionsStarted(2, 'TRANSACTION_SYNC');
    const streams = [
      multipartSubscription(gateway, { cookie }, SYNC_EVENTS, { cursor }).reader,
      sseSubscription(gateway, { cookie }, SYNC_EVENTS, { cursor }).reader,
    ];
    await started;
    for (const reader of streams)
      expect((await reader.data<{ transactionsSync: Delta }>()).transactionsSync).toMatchObject({ added: [] });
    const arrived = await at.add(2);
    for (const reader of streams)
      expect((await reader.data<{ transactionsSync: Delta }>()).transactionsSync).toMatchObject({
        added: [{ id: arrived._id, amount: arrived.amount }],
      });
  }, 60_000);

  it('refuses a cursor it did not give, or one whose changes are no longer kept, with SYNC_CURSOR_EXPIRED', async () => {
    const gateway = await startGateway(env());
    const { browser } = await signedInUser(gateway);
    const malformed = await sync(gateway, browser, 'not-a-cursor');
    expect(malformed.data).toBeNull();
    expect(malformed.errors?.[0]?.extensions).toMatchObject({ code: 'SYNC_CURSOR_EXPIRED', reason: 'MALFORMED' });
    const { cursor } = await syncAll(gateway, browser);
    // The user's kept data is dropped (a new consent): what changed since the cursor is not known.
    const reconnect = await browser.request(`${gateway.url}/graphql`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ query: 'mutation { revokeAllAccess { revoked } }' }),
    });
    expect(reconnect.status).toBe(200);
    const again = await signedInUser(gateway);
    const expired = await sync(gateway, again.browser, cursor);
    expect(expired.errors?.[0]?.extensions).toMatchObject({ code: 'SYNC_CURSOR_EXPIRED', reason: 'EXPIRED' });
  }, 60_000);
});

describe('transaction sync with the user-data store off', () => {
  it('answers SYNC_UNAVAILABLE: there is no ledger to sync from', async () => {
    const gateway = await startGateway({ USER_DATA_STORE: 'off' });
    const { browser } = await signedInUser(gateway);
    const answer = await sync(gateway, browser);
    expect(answer.errors?.[0]?.extensions.code).toBe('SYNC_UNAVAILABLE');
  });
});

describe('a transaction sync subscription whose kept data is dropped (Redis)', () => {
  it('ends with SYNC_CURSOR_EXPIRED at the first change of the ledger started again', async () => {
    const prefix = testPrefix();
    const gateway = await startGateway(redisUserDataEnv(prefix));
    const { browser, userId, state, appUser } = await signedInUser(gateway);
    const at = platform(gateway, userId, state);
    const { cursor } = await syncAll(gateway, browser, undefined, 500);
    const { client } = socketClient(gateway, browser);
    const live = await subscribe<{ transactionsSync: Delta }>(gateway, client, SYNC_EVENTS, 'TRANSACTION_SYNC', {
      cursor,
    });
    expect((await live.next()).data!.transactionsSync).toMatchObject({ added: [], hasMore: false });
    // The store drops the user whole (its budget, say); a read keeps their data again, in a new ledger.
    await testRedis().del(`${prefix}{u:${userTag(appUser)}}:user-data`);
    await syncAll(gateway, browser, undefined, 500);
    await at.add(0);
    const ended = await live.next();
    expect(ended.errors?.[0]?.extensions).toMatchObject({ code: 'SYNC_CURSOR_EXPIRED', reason: 'EXPIRED' });
    await expect(live.next()).rejects.toThrow('subscription ended');
  }, 60_000);
});
