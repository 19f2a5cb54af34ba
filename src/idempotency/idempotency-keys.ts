import { createHash, randomUUID } from 'node:crypto';
import type { CreationOnce, IdempotencyKey } from './creation-once.js';
import type { IdempotencyKeyStore } from './idempotency-key-store.js';

/** JSON with object keys sorted, so the same input always fingerprints the same. */
function canonical(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonical).join(',')}]`;
  if (value !== null && typeof value === 'object')
    return `{${Object.keys(value)
      .filter((key) => (value as Record<string, unknown>)[key] !== undefined)
      .sort()
      .map((key) => `${JSON.stringify(key)}:${canonical((value as Record<string, unknown>)[key])}`)
      .join(',')}}`;
  return JSON.stringify(value);
}

const digest = (...parts: string[]) => createHash('sha256').update(parts.join('\n')).digest('base64url');

/**
 * Idempotency keys for one user's money-moving creations. A client key is used as given (scoped
 * to the user upstream). Without one, the gateway derives it: the same operation with the same
 * input by the same user within `windowMs` gets the same key (so a retry or double submit replays
 * the first creation instead of paying twice); a deliberate second identical payment within the
 * window needs a key of its own.
 */
export function idempotencyKeysFor(userId: string, store: IdempotencyKeyStore, windowMs: number, once: CreationOnce) {
  const scoped = (key: string) => digest('idempotency', userId, key);
  return {
    /** One platform call per key, whichever instance and however many callers (see createCreationOnce). */
    create: once.create,
    async keyFor(operation: string, input: unknown, clientKey: string | undefined): Promise<IdempotencyKey> {
      const fingerprint = digest('creation', userId, operation, canonical(input));
      if (clientKey !== undefined) return { key: clientKey, upstreamKey: scoped(clientKey), input: fingerprint };
      const key = await store.claim(fingerprint, `gw-${randomUUID()}`, windowMs);
      return { key, upstreamKey: scoped(key), input: fingerprint };
    },
  };
}

export type IdempotencyKeys = ReturnType<typeof idempotencyKeysFor>;
