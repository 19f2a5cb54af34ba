import { LRUCache } from 'lru-cache';
import type { Clock } from '@open-finance-gateway/common/clock';
import { randomToken } from '@open-finance-gateway/common/ids';
import { GONE_DIGEST, SEEN_MAX_OBJECTS, type SeenMark } from './event-log.js';

/**
 * Which store a delivery ends in: a user's event log, or the dead letters. A claim and its "done"
 * mark live next to what the delivery stores (on Redis: in the same hash slot), so the step that
 * stores the delivery marks it done in the same atomic write.
 */
export type DeliveryScope = { userId: string } | 'dead-letters';

/**
 * What a claim found. `claimed`: this caller processes the body, holding `token`. `in-progress`:
 * another request is processing it (answer 503, retry after `retryAfterMs`). `done`: it was stored
 * before (answer 200).
 */
export type ClaimOutcome =
  { state: 'claimed'; token: string } | { state: 'in-progress'; retryAfterMs: number } | { state: 'done' };

export const DEDUPLICATION_WINDOW_MS = 4 * 86_400_000;

export function newClaimToken(): string {
  return randomToken(12);
}

type Mark = { state: 'done' } | { state: 'in-progress'; token: string };

/**
 * The in-memory marks, shared by the memory ledger, event log and dead letters of one process, so
 * storing a delivery and marking it done happen in one synchronous step there too.
 */
export interface DeliveryMarks {
  /** With `reclaimDone`, a done body is claimed again (a body judged by its content may repeat for a new change). */
  claim(key: string, leaseMs: number, reclaimDone?: boolean): ClaimOutcome;
  release(key: string, token: string): void;
  isDone(key: string): boolean;
  markDone(key: string): void;
  /** Whether every mark equals what the user's subscribers were last given (none: never). */
  sameContent(userId: string, marks: readonly SeenMark[]): boolean;
  noteContent(userId: string, marks: readonly SeenMark[]): void;
  forgetContent(userId: string): void;
}

export function deliveryMarkKey(scope: DeliveryScope, bodyHash: string): string {
  return scope === 'dead-letters' ? `dead-letters:${bodyHash}` : `user:${scope.userId}:${bodyHash}`;
}

export function createMemoryDeliveryMarks(options: { clock: Clock; maxEntries?: number }): DeliveryMarks {
  const marks = new LRUCache<string, Mark>({
    // The same bound as `max`, without `max`'s arrays of that length made up front (tens of ms at start).
    maxSize: options.maxEntries ?? 200_000,
    sizeCalculation: () => 1,
    ttl: DEDUPLICATION_WINDOW_MS,
    ttlResolution: 0,
    perf: { now: options.clock },
  });
  // What each user's subscribers were last given, per object (the same window as the delivery marks).
  const seen = new LRUCache<string, Map<string, string>>({
    maxSize: options.maxEntries ?? 200_000,
    sizeCalculation: (objects) => Math.max(1, objects.size),
    ttl: DEDUPLICATION_WINDOW_MS,
    ttlResolution: 0,
    perf: { now: options.clock },
  });
  return {
    claim(key, leaseMs, reclaimDone = false) {
      const mark = marks.get(key);
      if (mark?.state === 'done' && !reclaimDone) return { state: 'done' };
      if (mark?.state === 'in-progress') return { state: 'in-progress', retryAfterMs: marks.getRemainingTTL(key) };
      const token = newClaimToken();
      marks.set(key, { state: 'in-progress', token }, { ttl: leaseMs });
      return { state: 'claimed', token };
    },
    release(key, token) {
      const mark = marks.get(key);
      if (mark?.state === 'in-progress' && mark.token === token) marks.delete(key);
    },
    isDone: (key) => marks.get(key)?.state === 'done',
    markDone: (key) => void marks.set(key, { state: 'done' }),
    sameContent(userId, content) {
      const objects = seen.get(userId);
      return content.length > 0 && content.every((mark) => objects?.get(mark.key) === mark.digest);
    },
    noteContent(userId, content) {
      let objects = seen.get(userId) ?? new Map<string, string>();
      const live = content.filter((mark) => mark.digest !== GONE_DIGEST);
      for (const mark of content) if (mark.digest === GONE_DIGEST) objects.delete(mark.key);
      if (objects.size + live.length > SEEN_MAX_OBJECTS) objects = new Map();
      for (const mark of live) objects.set(mark.key, mark.digest);
      if (objects.size > 0) seen.set(userId, objects);
      else seen.delete(userId);
    },
    forgetContent: (userId) => void seen.delete(userId),
  };
}
