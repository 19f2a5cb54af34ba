import type { IdempotencyKeyStore } from './idempotency-key-store.js';

/** The key a client sees (and may send again) and the key the platform sees for one creation. */
export interface IdempotencyKey {
  /** What the client supplied, or the gateway's derived key: returned with the result and in OUTCOME_UNKNOWN. */
  key: string;
  /** Sent as `Idempotency-Key`: scoped to the user, so two users' keys can never collide at the platform. */
  upstreamKey: string;
  /** The operation and input, fingerprinted: one key is for one creation (else IDEMPOTENCY_CONFLICT). */
  input: string;
}

/** The key is taken by another creation of the same input that has not finished (on another instance). */
export class CreationInProgressError extends Error {
  constructor() {
    super('creation in progress under this key');
  }
}

/** The key was used for a creation of another input. */
export class CreationConflictError extends Error {
  constructor() {
    super('idempotency key used for another input');
  }
}

/** What one creation answered: the item, and whether the platform (or this gateway) replayed it. */
export interface Creation<T> {
  item: T;
  replayed: boolean;
}

interface Flight {
  input: string;
  result: Promise<Creation<{ _id: string }>>;
}

export interface CreationOnceOptions {
  store: IdempotencyKeyStore;
  /** How long a key answers with its result. */
  windowMs: number;
  /** The in-progress lease: longer than the platform call's deadline, so a live call never loses it. */
  leaseMs: number;
}

/**
 * One platform call per idempotency key. On this instance, callers of a key already in flight
 * wait for that call and get its answer (replayed). Across instances the shared store's lease
 * decides: a key in progress elsewhere is CreationInProgressError (the client retries with the
 * same key), a finished one is read back by id instead of posted again. What reached the platform
 * is never repeated by the gateway, and what did not is never recorded as done.
 */
export function createCreationOnce(options: CreationOnceOptions) {
  const flights = new Map<string, Flight>();

  async function run<T extends { _id: string }>(
    key: IdempotencyKey,
    send: (upstreamKey: string) => Promise<Creation<T>>,
    read: (id: string) => Promise<T | undefined>,
  ): Promise<Creation<T>> {
    const begun = await options.store.begin(key.upstreamKey, key.input, options.leaseMs);
    if (!begun.held) {
      if (begun.record.input !== key.input) throw new CreationConflictError();
      if (begun.record.state === 'in-progress') throw new CreationInProgressError();
      const item = await read(begun.record.itemId);
      // Gone from the platform's reads (unlikely): ask the platform again, which replays by key.
      return item ? { item, replayed: true } : send(key.upstreamKey);
    }
    let created: Creation<T>;
    try {
      created = await send(key.upstreamKey);
    } catch (error) {
      // Failed or unknown: free the key at once so the retry asks the platform (which replays
      // a creation that did happen). A release that fails leaves the lease to lapse.
      await options.store.release(key.upstreamKey, begun.token).catch(() => undefined);
      throw error;
    }
    // The creation stands whatever this write does: a lost write leaves the lease to lapse, and a
    // later retry then reaches the platform with the same key, which replays it.
    await options.store.finish(key.upstreamKey, begun.token, created.item._id, options.windowMs).catch(() => undefined);
    return created;
  }

  return {
    async create<T extends { _id: string }>(
      key: IdempotencyKey,
      send: (upstreamKey: string) => Promise<Creation<T>>,
      read: (id: string) => Promise<T | undefined>,
    ): Promise<Creation<T>> {
      const flying = flights.get(key.upstreamKey);
      if (flying) {
        if (flying.input !== key.input) throw new CreationConflictError();
        const { item } = await flying.result;
        return { item: item as T, replayed: true };
      }
      const result = run(key, send, read);
      flights.set(key.upstreamKey, { input: key.input, result });
      try {
        return await result;
      } finally {
        flights.delete(key.upstreamKey);
      }
    },
  };
}

export type CreationOnce = ReturnType<typeof createCreationOnce>;
