import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { describe, expect, it } from 'vitest';
import { Router } from '@open-finance-gateway/common/http/router';
import { createLogger } from '@open-finance-gateway/common/logger';
import { SigningKeys } from '@open-finance-gateway/sandbox';
import { createMemoryDeliveryMarks } from '../../src/event-log/delivery-marks.js';
import { createMemoryEventLog } from '../../src/event-log/memory-event-log.js';
import { RequestScope, type ScopedRouteRequest } from '../../src/lib/request-scope.js';
import type { PlatformReads } from '../../src/user-data/kept-platform.js';
import { createMemoryUserDataStore } from '../../src/user-data/memory-user-data-store.js';
import { FIELD, TOPIC, type UserDataStore } from '../../src/user-data/user-data-store.js';
import { WebhookChanges } from '../../src/user-data/webhook-changes.js';
import { createMemoryDeadLetterStore } from '../../src/webhooks/memory-dead-letter-store.js';
import { createMemoryDeliveryLedger } from '../../src/webhooks/memory-delivery-ledger.js';
import { createMemoryRoutingHandleStore } from '../../src/webhooks/memory-routing-handle-store.js';
import type { RoutingHandleStore } from '../../src/webhooks/routing-handle-store.js';
import { SigningKeyCache } from '../../src/webhooks/signing-key-cache.js';
import { createWebhookDispatcher } from '../../src/webhooks/webhook-dispatcher.js';
import { registerWebhookRoute } from '../../src/webhooks/webhook-route.js';
import { track } from '../support/leftovers.js';

const logger = createLogger({ level: 'silent' });

/**
 * The webhook route in process, on memory stores, with side effects that can be made to fail
 * once (as a store that stalls mid-way would): a failed request answers 5xx, like the gateway.
 */
/** `call`, except that its first call throws when `fail` is set (a store that stalled mid-way). */
function failsOnce<A extends unknown[], R>(fail: boolean | undefined, call: (...args: A) => Promise<R>) {
  let failing = fail ?? false;
  return async (...args: A): Promise<R> => {
    if (failing) {
      failing = false;
      throw new Error('store stalled');
    }
    return call(...args);
  };
}

async function receiver(
  options: { failTokenRevocation?: boolean; failCancellation?: boolean; failUserDataChange?: boolean } = {},
) {
  const keys = new SigningKeys();
  const marks = createMemoryDeliveryMarks({ clock: Date.now });
  const eventLog = createMemoryEventLog({ logger, clock: Date.now, retentionMs: 3_600_000, marks });
  const memoryHandles = createMemoryRoutingHandleStore();
  const handles: RoutingHandleStore = {
    ...memoryHandles,
    markCancelled: failsOnce(options.failCancellation, memoryHandles.markCancelled),
  };
  const memoryUserData = createMemoryUserDataStore({
    maxAgeMs: 60_000,
    retentionMs: 120_000,
    userMaxBytes: 1 << 20,
    budgetBytes: 1 << 24,
    clock: Date.now,
  });
  const userData: UserDataStore = {
    ...memoryUserData,
    apply: failsOnce(options.failUserDataChange, memoryUserData.apply),
  };
  // The platform's account as it is now (what an ACCOUNT UPDATE reads again).
  const platform = { account: { _id: 'acc_1', balance: 2 } };
  const reads = { getAccount: async () => platform.account } as unknown as PlatformReads;
  const revocations: string[] = [];
  const published: string[] = [];
  const router = new Router<ScopedRouteRequest>();
  registerWebhookRoute(router, {
    headerPrefix: 'X-Service',
    keys: new SigningKeyCache({ fetchKey: async (id) => keys.lookup(id)!.publicPem, clock: Date.now }),
    accepting: () => true,
    dispatcher: createWebhookDispatcher({
      eventLog,
      handles,
      ledger: createMemoryDeliveryLedger({ marks, leaseMs: 60_000 }),
      deadLetters: createMemoryDeadLetterStore({ marks }),
      logger,
      clock: Date.now,
      onPublished: (_userId, type, code) => published.push(`${type} ${code}`),
      changes: new WebhookChanges(userData),
      platformFor: async () => reads,
      onTokenRevoked: failsOnce(options.failTokenRevocation, async (_userId: string, token: string) => {
        revocations.push(token);
      }),
    }),
  });
  const server = createServer((req, res) => {
    const url = new URL(req.url!, 'http://localhost');
    const match = router.match(req.method!, url.pathname);
    if (!match || match === 'methodNotAllowed') return void res.writeHead(404).end();
    Promise.resolve(
      match.handler({ req, res, url, params: match.params, scope: new RequestScope('req-00001', logger) }),
    ).catch(() => res.writeHead(503, { 'content-type': 'application/json' }).end('{"status":"failed"}'));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  track(() => new Promise<void>((resolve) => server.close(() => resolve())));
  const state = await memoryHandles.handleFor('app_user');
  const post = async (body: string) => {
    const signed = keys.sign(Buffer.from(body));
    const response = await fetch(`http://127.0.0.1:${(server.address() as AddressInfo).port}/webhooks`, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        'X-Service-Signature': signed.signature,
        'X-Service-Signing-Key': String(signed.keyId),
      },
      body,
    });
    return { status: response.status, body: (await response.json()) as { status: string } };
  };
  return {
    post,
    state,
    revocations,
    published,
    cancelled: () => memoryHandles.cancelledTypes('app_user'),
    userData: memoryUserData,
  };
}

describe('webhook side effects after a partial failure', () => {
  it('a TOKEN DELETE whose sessions could not be ended is redone on the retry, though its event was already stored', async () => {
    const hooks = await receiver({ failTokenRevocation: true });
    const body = JSON.stringify({
      webhook_type: 'TOKEN',
      webhook_code: 'DELETE',
      state: hooks.state,
      item_id: 'tok_1',
    });
    expect((await hooks.post(body)).status).toBe(503);
    expect(await hooks.post(body)).toEqual({ status: 200, body: { status: 'duplicate' } });
    expect(hooks.revocations).toEqual(['tok_1']);
  });

  it('an ACCOUNT UPDATE whose user-data change failed is not acknowledged, and the retry makes the change', async () => {
    const hooks = await receiver({ failUserDataChange: true });
    const kept = async () =>
      (await hooks.userData.read('app_user', [FIELD.accounts], [])).values.get(FIELD.accounts)?.value;
    const before = await hooks.userData.read('app_user', [FIELD.accounts], [TOPIC.accounts]);
    await hooks.userData.apply('app_user', before, { put: [[FIELD.accounts, '[{"_id":"acc_1","balance":1}]']] });
    const body = JSON.stringify({
      webhook_type: 'ACCOUNT',
      webhook_code: 'UPDATE',
      state: hooks.state,
      item_id: 'acc_1',
      updated_fields: ['balance'],
    });
    expect((await hooks.post(body)).status).toBe(503);
    expect(hooks.published).toEqual([]);
    expect(await kept()).toBe('[{"_id":"acc_1","balance":1}]');
    expect(await hooks.post(body)).toEqual({ status: 200, body: { status: 'published' } });
    expect(await kept()).toBe('[{"_id":"acc_1","balance":2}]');
    expect(hooks.published).toEqual(['ACCOUNT UPDATE']);
  });

  it('a WEBHOOK_CANCELLED whose mark failed is processed whole on the retry', async () => {
    const hooks = await receiver({ failCancellation: true });
    const body = JSON.stringify({ webhook_type: 'PAYMENT', webhook_code: 'WEBHOOK_CANCELLED', state: hooks.state });
    expect((await hooks.post(body)).status).toBe(503);
    expect(hooks.published).toEqual([]);
    expect(await hooks.post(body)).toEqual({ status: 200, body: { status: 'published' } });
    expect(await hooks.cancelled()).toEqual(['PAYMENT']);
    expect(hooks.published).toEqual(['PAYMENT WEBHOOK_CANCELLED']);
  });
});
