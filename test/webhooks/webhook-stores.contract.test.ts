import { describe, expect, it } from 'vitest';
import { createLogger } from '@open-finance-gateway/common/logger';
import type { RedisConnectionSettings } from '../../src/config/redis-settings.js';
import { createMemoryDeliveryMarks, type ClaimOutcome } from '../../src/event-log/delivery-marks.js';
import { createRedisClient } from '../../src/redis/redis-client.js';
import type { DeadLetterStore } from '../../src/webhooks/dead-letter-store.js';
import type { DeliveryLedger } from '../../src/webhooks/delivery-ledger.js';
import { createMemoryDeadLetterStore } from '../../src/webhooks/memory-dead-letter-store.js';
import { createMemoryDeliveryLedger } from '../../src/webhooks/memory-delivery-ledger.js';
import { createMemoryRoutingHandleStore } from '../../src/webhooks/memory-routing-handle-store.js';
import { createRedisDeadLetterStore } from '../../src/webhooks/redis-dead-letter-store.js';
import { createRedisDeliveryLedger } from '../../src/webhooks/redis-delivery-ledger.js';
import { createRedisRoutingHandleStore } from '../../src/webhooks/redis-routing-handle-store.js';
import type { RoutingHandleStore } from '../../src/webhooks/routing-handle-store.js';
import { track } from '../support/leftovers.js';
import { storeKinds } from '../support/redis-topologies.js';
import { testPrefix } from '../support/redis.js';

/** The contract of the webhook stores (delivery ledger, dead letters, routing handles), in memory and on Redis. */

const logger = createLogger({ level: 'silent' });
/** The delivery ledger's lease here; the second ledger's is short, so its lapse is one short wait. */
const LEASE_MS = 60_000;
const SHORT_LEASE_MS = 200;
const tokenOf = (claim: ClaimOutcome) => (claim.state === 'claimed' ? claim.token : 'none');

interface Stores {
  ledger: DeliveryLedger;
  /** The same ledger with a short lease. */
  shortLedger: DeliveryLedger;
  handles: RoutingHandleStore;
  deadLetters: DeadLetterStore;
}

async function redisStores(connection: RedisConnectionSettings): Promise<Stores> {
  const redis = createRedisClient({ connection, commandTimeoutMs: 1_000, logger, role: 'test' });
  await redis.connect();
  track(() => redis.disconnect());
  const options = { redis, keyPrefix: testPrefix() };
  return {
    ledger: createRedisDeliveryLedger({ ...options, leaseMs: LEASE_MS }),
    shortLedger: createRedisDeliveryLedger({ ...options, leaseMs: SHORT_LEASE_MS }),
    handles: createRedisRoutingHandleStore(options),
    deadLetters: createRedisDeadLetterStore({ ...options, maxEntries: 3 }),
  };
}

function memoryStores(): Stores {
  const marks = createMemoryDeliveryMarks({ clock: Date.now });
  return {
    ledger: createMemoryDeliveryLedger({ marks, leaseMs: LEASE_MS }),
    shortLedger: createMemoryDeliveryLedger({ marks, leaseMs: SHORT_LEASE_MS }),
    handles: createMemoryRoutingHandleStore(),
    deadLetters: createMemoryDeadLetterStore({ maxEntries: 3, marks }),
  };
}

for (const [kind, make] of storeKinds(memoryStores, redisStores)) {
  describe(`webhook stores contract: ${kind}`, () => {
    it('delivery ledger: one claim wins, even raced, the others find it in progress; only its holder releases it', async () => {
      const { ledger } = await make();
      const scope = { userId: 'user_l' };
      const outcomes = await Promise.all(Array.from({ length: 10 }, () => ledger.claim(scope, 'hash-1')));
      const winners = outcomes.filter((outcome) => outcome.state === 'claimed');
      expect(winners).toHaveLength(1);
      for (const outcome of outcomes.filter((outcome) => outcome.state !== 'claimed')) {
        expect(outcome.state).toBe('in-progress');
        const retryAfterMs = outcome.state === 'in-progress' ? outcome.retryAfterMs : -1;
        expect(retryAfterMs).toBeGreaterThan(0);
        expect(retryAfterMs).toBeLessThanOrEqual(LEASE_MS);
      }
      // The same body for another user, or as a dead letter, is another claim.
      expect((await ledger.claim({ userId: 'user_m' }, 'hash-1')).state).toBe('claimed');
      expect((await ledger.claim('dead-letters', 'hash-1')).state).toBe('claimed');
      await ledger.release(scope, 'hash-1', 'not-the-holder');
      expect((await ledger.claim(scope, 'hash-1')).state).toBe('in-progress');
      await ledger.release(scope, 'hash-1', tokenOf(winners[0]!));
      expect((await ledger.claim(scope, 'hash-1')).state).toBe('claimed');
    });

    it('delivery ledger: a claim whose lease runs out (its holder died or stalled) is claimed by the next retry', async () => {
      const { shortLedger: ledger } = await make();
      const first = await ledger.claim({ userId: 'user_n' }, 'hash-2');
      expect(first.state).toBe('claimed');
      // The one wait here: Redis expiry has no clock to move.
      await new Promise((resolve) => setTimeout(resolve, SHORT_LEASE_MS + 50));
      const retry = await ledger.claim({ userId: 'user_n' }, 'hash-2');
      expect(retry.state).toBe('claimed');
      // The dead holder's late release cannot free the retry's claim.
      await ledger.release({ userId: 'user_n' }, 'hash-2', tokenOf(first));
      expect((await ledger.claim({ userId: 'user_n' }, 'hash-2')).state).toBe('in-progress');
    });

    it('dead letters: a letter is kept and its body marked done in one step; a late second write keeps no copy', async () => {
      const { ledger, deadLetters } = await make();
      const claim = await ledger.claim('dead-letters', 'hash-dead');
      const letter = {
        receivedAt: new Date().toISOString(),
        bodyHash: 'hash-dead',
        reason: 'not a JSON object',
        bodyBytes: 3,
        bodyPreview: '[1]',
      };
      expect(await deadLetters.add(letter)).toBe(true);
      await ledger.release('dead-letters', 'hash-dead', tokenOf(claim));
      expect(await ledger.claim('dead-letters', 'hash-dead')).toEqual({ state: 'done' });
      expect(await deadLetters.add(letter)).toBe(false);
      expect((await deadLetters.list()).map((kept) => kept.bodyHash)).toEqual(['hash-dead']);
    });

    it('routing handles: one stable handle per user, even raced; cancellations; deletion', async () => {
      const { handles } = await make();
      const raced = await Promise.all(Array.from({ length: 5 }, () => handles.handleFor('user_d')));
      expect(new Set(raced).size).toBe(1);
      const handle = raced[0]!;
      expect(handle).toMatch(/^rh_[A-Za-z0-9_-]{32}$/);
      expect(await handles.userFor(handle)).toBe('user_d');
      await handles.markCancelled('user_d', 'PAYMENT');
      expect(await handles.cancelledTypes('user_d')).toEqual(['PAYMENT']);
      await handles.deleteUser('user_d');
      expect(await handles.userFor(handle)).toBeUndefined();
      expect(await handles.cancelledTypes('user_d')).toEqual([]);
      expect(await handles.handleFor('user_d')).not.toBe(handle);
    });

    it('dead letters: newest first, bounded', async () => {
      const { deadLetters } = await make();
      for (let index = 0; index < 5; index += 1) {
        await deadLetters.add({
          receivedAt: new Date().toISOString(),
          bodyHash: `h${index}`,
          reason: 'not a JSON object',
          bodyBytes: 3,
          bodyPreview: '[1]',
        });
      }
      expect((await deadLetters.list()).map((letter) => letter.bodyHash)).toEqual(['h4', 'h3', 'h2']);
    });
  });
}
