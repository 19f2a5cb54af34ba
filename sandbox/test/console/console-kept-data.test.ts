import { describe, expect, it } from 'vitest';
import { sdkAgainstSandbox, signedIn, type SdkSetup } from '../support/sdk.js';

/** Subscribing needs a webhook URL; nothing here fires an event to it. */
const NO_DELIVERIES = 'http://127.0.0.1:9/webhooks';

async function keptDataByUser({ sandbox }: SdkSetup): Promise<Map<string, unknown>> {
  const response = await fetch(`${sandbox.coreUrl}/console/state`);
  expect(response.status).toBe(200);
  const { users } = (await response.json()) as { users: Array<{ id: string; keptData?: unknown }> };
  return new Map(users.map((user) => [user.id, user.keptData]));
}

/** A demo user signed in through the SDK with one webhook registered under `state`. */
async function withWebhookState(setup: SdkSetup, state: string): Promise<string> {
  const token = await signedIn(setup);
  await setup.akahu.webhooks.subscribe(token, { webhook_type: 'ACCOUNT', state });
  return setup.sandbox.webhookSubscriptions().find((hook) => hook.state === state)!.userId;
}

describe('the console\u2019s kept-data row (what an embedding gateway keeps of each user)', () => {
  it('shows nothing without an embedding gateway\u2019s probe (a standalone sandbox)', async () => {
    const setup = await sdkAgainstSandbox({ webhookUrl: NO_DELIVERIES });
    await withWebhookState(setup, 'handle-a');
    expect([...(await keptDataByUser(setup)).values()].every((kept) => kept === undefined)).toBe(true);
  });

  it('asks the probe with each user\u2019s own webhook states only, and shows its answer', async () => {
    const setup = await sdkAgainstSandbox({ webhookUrl: NO_DELIVERIES });
    const userId = await withWebhookState(setup, 'handle-a');
    const asked: string[][] = [];
    setup.sandbox.showKeptData(async (states) => {
      asked.push([...states]);
      return states.includes('handle-a') ? 12_500 : undefined;
    });
    const kept = await keptDataByUser(setup);
    expect(kept.get(userId)).toEqual({ kept: true, ageSeconds: 12 });
    // Users with no webhook registration are not asked about: nothing of them can be kept.
    expect(asked).toEqual([['handle-a']]);
    for (const [id, other] of kept) if (id !== userId) expect(other).toEqual({ kept: false });

    setup.sandbox.showKeptData(async () => undefined);
    expect((await keptDataByUser(setup)).get(userId)).toEqual({ kept: false });
  });

  it('says the gateway\u2019s store did not answer when the probe fails, and the console still loads', async () => {
    const setup = await sdkAgainstSandbox({ webhookUrl: NO_DELIVERIES });
    const userId = await withWebhookState(setup, 'handle-a');
    setup.sandbox.showKeptData(() => Promise.reject(new Error('store unavailable')));
    expect((await keptDataByUser(setup)).get(userId)).toEqual({ unknown: true });
  });
});
