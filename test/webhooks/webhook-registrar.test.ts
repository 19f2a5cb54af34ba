import { describe, expect, it } from 'vitest';
import { createLogger } from '@open-finance-gateway/common/logger';
import { StoreUnavailableError } from '../../src/lib/store-unavailable.js';
import type { CoreClient } from '../../src/upstream/core-client.js';
import { createMemoryRoutingHandleStore } from '../../src/webhooks/memory-routing-handle-store.js';
import type { RoutingHandleStore } from '../../src/webhooks/routing-handle-store.js';
import { createWebhookRegistrar } from '../../src/webhooks/webhook-registrar.js';

/** A platform that lists no subscription and records each one made. */
function recordingCore(made: Array<{ type: string; state: string }>): CoreClient {
  return {
    listWebhooks: async () => [],
    registerWebhook: async (_token: string, type: string, state: string) => void made.push({ type, state }),
  } as unknown as CoreClient;
}

/** The memory store, whose first `failures` hand-outs fail as a store that did not answer in time. */
function flakyHandles(failures: number): RoutingHandleStore {
  const store = createMemoryRoutingHandleStore();
  let left = failures;
  return {
    ...store,
    handleFor: async (userId) => {
      if (left-- > 0) throw new StoreUnavailableError('redis: slow');
      return store.handleFor(userId);
    },
  };
}

describe('subscribing a newly connected user to webhooks', () => {
  it('retries the routing handle when the store does not answer in time, then subscribes every type with it', async () => {
    const made: Array<{ type: string; state: string }> = [];
    const subscribe = createWebhookRegistrar({
      core: recordingCore(made),
      handles: flakyHandles(2),
      types: ['PAYMENT', 'TOKEN'],
      logger: createLogger({ level: 'silent' }),
      retryDelayMs: 1,
    });
    const outcome = await subscribe('user-1', 'token-1');
    expect(outcome).toEqual({ registered: ['PAYMENT', 'TOKEN'], failed: [], alreadyRegistered: [] });
    expect(new Set(made.map((call) => call.state)).size).toBe(1);
    expect(made[0]!.state).toMatch(/^rh_/);
  });

  it('reports every type failed, and subscribes nothing, when no handle can be had', async () => {
    const made: Array<{ type: string; state: string }> = [];
    const subscribe = createWebhookRegistrar({
      core: recordingCore(made),
      handles: flakyHandles(3),
      types: ['PAYMENT', 'TOKEN'],
      logger: createLogger({ level: 'silent' }),
      retryDelayMs: 1,
    });
    expect(await subscribe('user-1', 'token-1')).toEqual({
      registered: [],
      failed: ['PAYMENT', 'TOKEN'],
      alreadyRegistered: [],
    });
    expect(made).toEqual([]);
  });
});
