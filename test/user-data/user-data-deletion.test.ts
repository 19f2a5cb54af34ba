import { describe, expect, it } from 'vitest';
import { userTag } from '../../src/redis/redis-keys.js';
import type { Browser } from '../support/browser.js';
import { appUserId, startGateway, type TestGateway } from '../support/gateway.js';
import { dumpKeys, redisUserDataEnv, testPrefix } from '../support/redis.js';
import { deliver, signedHeaders, signedInUser } from '../support/webhooks.js';

async function graphql(gateway: TestGateway, browser: Browser, query: string, variables: Record<string, unknown> = {}) {
  const response = await browser.request(`${gateway.url}/graphql`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ query, variables }),
  });
  return JSON.parse(response.text) as {
    data?: Record<string, unknown>;
    errors?: Array<{ extensions: { code: string } }>;
  };
}

const READ = 'query { me { id } accounts { id } transactions(first: 10) { nodes { id } } }';

async function onRedis() {
  const prefix = testPrefix();
  const gateway = await startGateway(redisUserDataEnv(prefix));
  const user = await signedInUser(gateway);
  const tag = userTag(appUserId(gateway, 0));
  /** What Redis still holds of the user's kept data: their key, or a mention in the store's index. */
  const keptOfUser = async () =>
    (await dumpKeys(prefix)).filter(
      ([key, value]) => key.endsWith(`{u:${tag}}:user-data`) || (key.includes('{user-data}') && value.includes(tag)),
    );
  expect((await graphql(gateway, user.browser, READ)).errors).toBeUndefined();
  expect((await keptOfUser()).map(([key]) => key)).toContain(`${prefix}{u:${tag}}:user-data`);
  return { gateway, user, prefix, tag, keptOfUser };
}

describe('when access ends, nothing kept for the user is left (Redis)', () => {
  it('a TOKEN DELETE deletes it before the webhook is answered 200', async () => {
    const { gateway, user, keptOfUser } = await onRedis();
    const [token] = gateway.sandbox.issuedTokens();
    const body = JSON.stringify({ webhook_type: 'TOKEN', webhook_code: 'DELETE', state: user.state, item_id: token });
    expect((await deliver(gateway, body, signedHeaders(gateway, body))).status).toBe(200);
    expect(await keptOfUser()).toEqual([]);
  });

  it('deleteMyAccount deletes it with the rest: no key of the user\u2019s data remains', async () => {
    const { gateway, user, prefix, tag, keptOfUser } = await onRedis();
    const deleted = await graphql(gateway, user.browser, 'mutation { deleteMyAccount { complete } }');
    expect(deleted.data).toEqual({ deleteMyAccount: { complete: true } });
    await gateway.waitForEvent('user-data-deleted', (event) => event.userId === user.appUser);
    expect(await keptOfUser()).toEqual([]);
    // As the existing check says: only the emptied event stream, the session tombstones and the
    // access-ended instant (which refuses older access tokens until they expire) remain.
    const tombstones = [':events', ':ended', ':access-ended'];
    const left = (await dumpKeys(prefix)).filter(([key]) => key.includes(tag));
    expect(left.filter(([key]) => !tombstones.some((end) => key.endsWith(end)))).toEqual([]);
  });
});

describe('revokeAccount', () => {
  it('drops the revoked account and its transactions from the store at once', async () => {
    const gateway = await startGateway({ USER_DATA_STORE: 'memory' });
    const { browser } = await signedInUser(gateway);
    const query = 'query($id: ID!) { accounts { id } account(id: $id) { id } }';
    const first = (await graphql(gateway, browser, 'query { accounts { id } }')).data!.accounts as Array<{
      id: string;
    }>;
    const target = first[1]!.id;
    expect((await graphql(gateway, browser, query, { id: target })).data!.account).toEqual({ id: target });
    expect(
      (await graphql(gateway, browser, 'mutation($id: ID!) { revokeAccount(id: $id) { accountId } }', { id: target }))
        .errors,
    ).toBeUndefined();
    const after = (await graphql(gateway, browser, query, { id: target })).data!;
    expect(after.account).toBeNull();
    expect((after.accounts as Array<{ id: string }>).map((row) => row.id)).not.toContain(target);
    const page = await graphql(
      gateway,
      browser,
      'query($id: ID) { transactions(accountId: $id, first: 5) { nodes { id } } }',
      {
        id: target,
      },
    );
    expect(page.errors![0]!.extensions.code).toBe('NOT_FOUND');
  });
});
