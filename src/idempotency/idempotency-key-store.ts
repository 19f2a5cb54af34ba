/** Who holds an idempotency key: a creation still in flight (a short lease), or its result. */
export type CreationRecord = { state: 'in-progress'; input: string } | { state: 'done'; input: string; itemId: string };

/** `begin`'s answer: this caller holds the lease (and must finish or release it), or someone else does or did. */
export type CreationBegin = { held: true; token: string } | { held: false; record: CreationRecord };

/**
 * Idempotency keys of money-moving creations, shared by every instance.
 *
 * `claim`: which key a creation uses when the client gave none. The first creation of a given
 * input by a user claims a fresh key for the dedupe window; the same input again within the
 * window (a double tap, a client retry after a lost answer) gets the same key. Atomic (Redis
 * `SET NX GET`), so two instances racing the same retry agree on one key.
 *
 * `begin` / `finish` / `release`: one platform call per key, in two phases as webhooks do. `begin`
 * takes a short in-progress lease (longer than the platform call's deadline), so concurrent
 * callers on any instance learn the key is taken instead of posting too. `finish` turns it into
 * the result (the created id) for the window; `release` drops it when the call failed or its
 * outcome is unknown, so the next try asks the platform, which replays. A write that times out
 * leaves at most the lease, which lapses on its own: the key is never held without a creation,
 * and a creation is never sent twice under one key by this gateway.
 */
export interface IdempotencyKeyStore {
  /** The key already claimed for `fingerprint` within the window, or `proposed`, now claimed. */
  claim(fingerprint: string, proposed: string, windowMs: number): Promise<string>;
  /** Takes `key`'s lease for `leaseMs`, for the creation of `input`; or returns its holder's record. */
  begin(key: string, input: string, leaseMs: number): Promise<CreationBegin>;
  /** The lease holder's result: `key` now answers `itemId` for `windowMs`. No-op if the lease was lost. */
  finish(key: string, token: string, itemId: string, windowMs: number): Promise<void>;
  /** Drops the lease, if still held by `token` (never a finished record). */
  release(key: string, token: string): Promise<void>;
}

/** What both implementations keep per leased key: the record plus the holder's token. */
export type StoredCreation = CreationRecord & { token: string };
