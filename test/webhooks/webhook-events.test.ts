import { describe, expect, it } from 'vitest';
import { createLogger } from '@open-finance-gateway/common/logger';
import { isKnownWebhook, WEBHOOK_EVENTS, WEBHOOK_TYPES } from '@open-finance-gateway/common/webhook-events';
import { createWebhookDispatcher } from '../../src/webhooks/webhook-dispatcher.js';

describe('the webhook event registry', () => {
  it('is what the receiver accepts: every listed type and code, and nothing else (prototype names included)', async () => {
    const dispatcher = createWebhookDispatcher({
      eventLog: undefined as never,
      handles: { userFor: async () => 'user_1' } as never,
      ledger: undefined as never,
      deadLetters: undefined as never,
      logger: createLogger({ level: 'silent' }),
      clock: Date.now,
      onTokenRevoked: async () => undefined,
      changes: undefined as never,
      platformFor: async () => undefined,
    });
    for (const type of WEBHOOK_TYPES) {
      for (const code of WEBHOOK_EVENTS[type].codes) {
        expect(
          await dispatcher.route({ webhook_type: type, webhook_code: code, state: 'rh_x', item_id: 'x' }),
          `${type} ${code}`,
        ).toMatchObject({ userId: 'user_1', event: { type, code } });
      }
    }
    for (const [type, code] of [
      ['TOKEN', 'WEBHOOK_CANCELLED'],
      ['USER', 'UPDATE'],
      ['constructor', 'UPDATE'],
      ['__proto__', 'DELETE'],
      ['PAYMENT', 'toString'],
    ]) {
      expect(isKnownWebhook(type, code)).toBe(false);
      expect(await dispatcher.route({ webhook_type: type, webhook_code: code, state: 'rh_x' })).toHaveProperty(
        'ignored',
      );
    }
  });
});
