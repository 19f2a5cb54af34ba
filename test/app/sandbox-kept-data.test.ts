import { describe, expect, it } from 'vitest';
import type { Browser } from '../support/browser.js';
import { startGateway, type TestGateway } from '../support/gateway.js';
import { deliver, signedHeaders, signedInUser } from '../support/webhooks.js';

async function graphql(gateway: TestGateway, browser: Browser, query: string) {
  const response = await browser.request(`${gateway.url}/graphql`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ query }),
  });
  return JSON.parse(response.text) as { data?: Record<string, unknown>; errors?: unknown[] };
}

/** What the sandbox console's page renders for each demo user: its `/console/state`, by user id. */
async function consoleUsers(gateway: TestGateway): Promise<Map<string, { keptData?: unknown }>> {
  const response = await fetch(`${gateway.sandbox.consoleUrl}/state`);
  expect(response.status).toBe(200);
  const { users } = (await response.json()) as { users: Array<{ id: string; keptData?: unknown }> };
  return new Map(users.map((user) => [user.id, user]));
}

/** The demo user at the platform behind a gateway user: the one whose webhooks carry their routing handle. */
const platformUserOf = (gateway: TestGateway, state: string) =>
  gateway.sandbox.webhookSubscriptions().find((hook) => hook.state === state)!.userId;

const KEPT = { kept: true, ageSeconds: expect.any(Number) };
const NOT_KEPT = { kept: false };

async function signedInWithKeptData() {
  const gateway = await startGateway({ USER_DATA_STORE: 'memory' });
  const before = await consoleUsers(gateway);
  expect([...before.values()].map((user) => user.keptData)).toContainEqual(NOT_KEPT);
  const user = await signedInUser(gateway);
  const demoUser = platformUserOf(gateway, user.state);
  expect((await graphql(gateway, user.browser, 'query { accounts { id } }')).errors).toBeUndefined();
  const console = await consoleUsers(gateway);
  expect(console.get(demoUser)!.keptData).toEqual(KEPT);
  // Every other demo user is read from the platform on their next open.
  for (const [id, other] of console) if (id !== demoUser) expect(other.keptData).toEqual(NOT_KEPT);
  return { gateway, user, demoUser };
}

describe('the embedded sandbox console shows whose data the gateway serves from its user-data store', () => {
  it('shows a user as served from the store after a read, and as not kept after a TOKEN DELETE', async () => {
    const { gateway, user, demoUser } = await signedInWithKeptData();
    const [token] = gateway.sandbox.issuedTokens();
    const body = JSON.stringify({ webhook_type: 'TOKEN', webhook_code: 'DELETE', state: user.state, item_id: token });
    expect((await deliver(gateway, body, signedHeaders(gateway, body))).status).toBe(200);
    expect((await consoleUsers(gateway)).get(demoUser)!.keptData).toEqual(NOT_KEPT);
  });

  it('shows the user as not kept once they revoke all access', async () => {
    const { gateway, user, demoUser } = await signedInWithKeptData();
    const revoked = await graphql(gateway, user.browser, 'mutation { revokeAllAccess { revoked } }');
    expect(revoked.data).toEqual({ revokeAllAccess: { revoked: true } });
    await gateway.waitForEvent('user-data-deleted', (event) => event.userId === user.appUser);
    expect((await consoleUsers(gateway)).get(demoUser)!.keptData).toEqual(NOT_KEPT);
  });

  it('shows nothing of the kind when the gateway keeps no user data', async () => {
    const gateway = await startGateway();
    const user = await signedInUser(gateway);
    expect((await graphql(gateway, user.browser, 'query { accounts { id } }')).errors).toBeUndefined();
    const console = await consoleUsers(gateway);
    expect([...console.values()].every((entry) => entry.keptData === undefined)).toBe(true);
  });
});
