import { describe, expect, it } from 'vitest';
import { createLogger } from '@open-finance-gateway/common/logger';
import { createTokenRevoker } from '../../src/auth/token-revoker.js';
import { StoreUnavailableError } from '../../src/lib/store-unavailable.js';
import { track } from '../support/leftovers.js';

/**
 * A connection write whose answer was lost landed after all: the store, once it answers again,
 * holds the new token. The revoker was handed both tokens while the store could not answer.
 */
describe('tokens given up while the store cannot say which one the connection holds', () => {
  it('are asked about again once the store answers: the one it holds stays, the other is revoked', async () => {
    let storeAnswers = false;
    const held = 'token-new';
    const asked: string[] = [];
    const revoked: string[] = [];
    let revokedOne: () => void = () => undefined;
    const revocation = new Promise<void>((resolve) => (revokedOne = resolve));
    let storeBack: () => void = () => undefined;
    const retried = new Promise<void>((resolve) => (storeBack = resolve));
    const revoker = createTokenRevoker({
      core: {
        revokeToken: async (token: string) => {
          revoked.push(token);
          revokedOne();
        },
      },
      inUse: async (_userId, token) => {
        asked.push(token);
        if (!storeAnswers) {
          // Both first asks failed: from now on the store answers.
          if (asked.length === 2) storeBack();
          throw new StoreUnavailableError('redis: slow');
        }
        return token === held;
      },
      logger: createLogger({ level: 'silent' }),
      storeRetryDelaysMs: [10, 10],
    });
    track(() => revoker.close());

    const outcomes = await Promise.all([
      revoker.revokeUnlessHeld('u1', 'token-new'),
      revoker.revokeUnlessHeld('u1', 'token-old'),
    ]);
    // Nothing is revoked before the store has answered; a later attempt is scheduled instead.
    expect(outcomes).toEqual([false, false]);
    expect(revoked).toEqual([]);
    await retried;
    storeAnswers = true;
    await revocation;
    expect(revoked).toEqual(['token-old']);
    expect(asked.filter((token) => token === 'token-new').length).toBeGreaterThanOrEqual(2);
  });
});
