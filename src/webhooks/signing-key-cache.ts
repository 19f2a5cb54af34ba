import { createPublicKey, type KeyObject } from 'node:crypto';
import { setTimeout as delay } from 'node:timers/promises';
import type { Clock } from '@open-finance-gateway/common/clock';
import { TokenBucket } from '@open-finance-gateway/common/token-bucket';
import { KeyRefusedByPlatformError } from '../upstream/signing-key-client.js';

/** Why no key is available for an id. `retryable` refusals are answered 503, the rest 401. */
export type KeyRefusal =
  /** Below the current id: rotated out (the platform's SDK refuses these too). */
  | 'expired'
  /** Far above the current id: ids grow by one per rotation, so this is not a real key. */
  | 'implausible'
  /** The platform does not know the id (or said so recently). */
  | 'unknown'
  /** The platform served something that is not an RSA key of at least 2048 bits. */
  | 'weak'
  /** The budget for fetching unknown ids is spent; try again later. */
  | 'budget'
  /** The key endpoint failed or timed out, or the next key was asked for a moment ago. */
  | 'unavailable';

export class KeyUnavailableError extends Error {
  constructor(
    readonly reason: KeyRefusal,
    readonly keyId: number,
  ) {
    super(`signing key ${keyId} unavailable: ${reason}`);
    this.name = 'KeyUnavailableError';
  }

  get retryable(): boolean {
    return this.reason === 'budget' || this.reason === 'unavailable';
  }
}

export interface SigningKeyCacheOptions {
  fetchKey(keyId: number): Promise<string>;
  clock: Clock;
  /** How long a fetched key is trusted. @default 24 hours (the platform's recommendation) */
  ttlMs?: number;
  /** Fetches of ids that are neither the current nor the next key, per minute. @default 10 */
  unknownFetchesPerMinute?: number;
  /** Of those, how many may be in flight at once (the key pool keeps room for the next key). @default 2 */
  maxUnknownFetchesInFlight?: number;
  /** Ids above current + this are refused without a fetch. @default 3 */
  lookahead?: number;
  /**
   * The current and next ids are fetched at most this often, outside the budget; a request inside
   * the window waits for it rather than failing, so forged requests naming those ids can delay a
   * genuine delivery by at most this much. Real time, not the injected clock. @default 1000
   */
  nearKeyRetryMs?: number;
  /** How long an unknown id the platform refused is not asked for again. @default 60 seconds */
  negativeTtlMs?: number;
}

const MIN_RSA_BITS = 2048;

/**
 * Webhook signing keys by id. The key id arrives in a header anyone can send, so it is treated as
 * attacker input that must not drive outbound calls or disturb genuine deliveries:
 * - a cached key answers at once; ids below the current one (rotated out) and far above it are
 *   refused without a fetch;
 * - the current id (after its 24 h) and the next id (current + 1, the one a rotation brings) are
 *   fetched at most once per `nearKeyRetryMs`, outside the budget; a request inside that window
 *   waits for its end, so no flood of forged ids can make a genuine delivery signed with either
 *   fail, or wait for more than about a second;
 * - any other id costs a token from a global bucket and a slot of a small in-flight cap, and an id
 *   the platform refused is remembered for a minute;
 * - one fetch per id at a time, shared by everyone asking;
 * - only RSA keys of at least 2048 bits are accepted; anything else leaves the cache as it was.
 * A key becomes current only once a signature has verified with it (`confirm`), and only then are
 * the other keys discarded, as the platform's rules require.
 */
export class SigningKeyCache {
  private readonly keys = new Map<number, { key: KeyObject; fetchedAt: number }>();
  private readonly refused = new Map<number, number>();
  /** performance.now() of the last fetch of a near id. */
  private readonly nearAttempts = new Map<number, number>();
  private readonly inflight = new Map<number, Promise<KeyObject>>();
  private readonly budget: TokenBucket;
  private unknownInFlight = 0;
  private currentId: number | undefined;
  private readonly ttlMs: number;
  private readonly negativeTtlMs: number;
  private readonly lookahead: number;
  private readonly nearKeyRetryMs: number;
  private readonly maxUnknownInFlight: number;

  constructor(private readonly options: SigningKeyCacheOptions) {
    this.ttlMs = options.ttlMs ?? 24 * 3_600_000;
    this.negativeTtlMs = options.negativeTtlMs ?? 60_000;
    this.lookahead = options.lookahead ?? 3;
    this.nearKeyRetryMs = options.nearKeyRetryMs ?? 1_000;
    this.maxUnknownInFlight = options.maxUnknownFetchesInFlight ?? 2;
    this.budget = new TokenBucket(options.unknownFetchesPerMinute ?? 10, 60_000, options.clock);
  }

  async get(keyId: number, waited = false): Promise<KeyObject> {
    const now = this.options.clock();
    const cached = this.keys.get(keyId);
    if (cached && now - cached.fetchedAt < this.ttlMs) return cached.key;
    const current = this.currentId;
    if (current !== undefined && keyId < current) throw new KeyUnavailableError('expired', keyId);
    if (current !== undefined && keyId > current + this.lookahead) throw new KeyUnavailableError('implausible', keyId);
    const pending = this.inflight.get(keyId);
    if (pending) return pending;

    const near = current !== undefined && keyId <= current + 1;
    if (near) {
      const last = this.nearAttempts.get(keyId);
      const wait = last === undefined ? 0 : last + this.nearKeyRetryMs - performance.now();
      if (wait > 0) {
        if (waited) throw new KeyUnavailableError('unavailable', keyId);
        await delay(wait);
        return this.get(keyId, true); // whoever wakes first fetches; the rest share its fetch
      }
      this.nearAttempts.set(keyId, performance.now());
    } else {
      const refusedAt = this.refused.get(keyId);
      if (refusedAt !== undefined && now - refusedAt < this.negativeTtlMs)
        throw new KeyUnavailableError('unknown', keyId);
      if (this.unknownInFlight >= this.maxUnknownInFlight || !this.budget.take())
        throw new KeyUnavailableError('budget', keyId);
      this.unknownInFlight += 1;
    }
    const fetching = this.fetch(keyId, near).finally(() => {
      this.inflight.delete(keyId);
      if (!near) this.unknownInFlight -= 1;
    });
    this.inflight.set(keyId, fetching);
    return fetching;
  }

  /** Called once a signature has verified with `keyId`. */
  confirm(keyId: number): void {
    if (this.currentId === keyId) return;
    this.currentId = keyId;
    for (const id of [...this.keys.keys()]) if (id !== keyId) this.keys.delete(id);
    this.nearAttempts.clear();
    this.refused.clear();
  }

  private async fetch(keyId: number, near: boolean): Promise<KeyObject> {
    let pem: string;
    try {
      pem = await this.options.fetchKey(keyId);
    } catch (error) {
      if (!(error instanceof KeyRefusedByPlatformError)) throw new KeyUnavailableError('unavailable', keyId);
      if (!near) this.remember(keyId);
      throw new KeyUnavailableError('unknown', keyId);
    }
    let key: KeyObject;
    try {
      key = createPublicKey(pem);
    } catch {
      throw new KeyUnavailableError('weak', keyId);
    }
    if (key.asymmetricKeyType !== 'rsa' || (key.asymmetricKeyDetails?.modulusLength ?? 0) < MIN_RSA_BITS)
      throw new KeyUnavailableError('weak', keyId);
    this.keys.set(keyId, { key, fetchedAt: this.options.clock() });
    this.refused.delete(keyId);
    return key;
  }

  private remember(keyId: number): void {
    this.refused.set(keyId, this.options.clock());
    if (this.refused.size > 1_000) this.refused.delete(this.refused.keys().next().value!);
  }
}
