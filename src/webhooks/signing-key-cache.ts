import { createPublicKey, type KeyObject } from 'node:crypto';
import type { Clock } from '../lib/clock.js';

export interface SigningKeyCacheOptions {
  fetchKey(keyId: number): Promise<string>;
  clock: Clock;
  /** How long a fetched key is trusted. @default 24 hours (the platform's recommendation) */
  ttlMs?: number;
  /** How long an id the platform refused is not asked for again. @default 60 seconds */
  negativeTtlMs?: number;
}

/**
 * Webhook signing keys by id. Keys live 24 hours. When a signature verifies with a key id other
 * than the current one, that id becomes current and every other cached key is discarded, but
 * only then: an id that merely appears in a header (attacker input) never evicts a good key.
 * Concurrent requests for one uncached id share a single fetch.
 */
export class SigningKeyCache {
  private readonly keys = new Map<number, { key: KeyObject; fetchedAt: number }>();
  private readonly refused = new Map<number, number>();
  private readonly inflight = new Map<number, Promise<KeyObject>>();
  private currentId: number | undefined;
  private readonly ttlMs: number;
  private readonly negativeTtlMs: number;

  constructor(private readonly options: SigningKeyCacheOptions) {
    this.ttlMs = options.ttlMs ?? 24 * 3_600_000;
    this.negativeTtlMs = options.negativeTtlMs ?? 60_000;
  }

  async get(keyId: number): Promise<KeyObject> {
    const now = this.options.clock();
    const cached = this.keys.get(keyId);
    if (cached && now - cached.fetchedAt < this.ttlMs) return cached.key;
    const refusedAt = this.refused.get(keyId);
    if (refusedAt !== undefined && now - refusedAt < this.negativeTtlMs) throw new Error(`signing key ${keyId} was refused recently`);
    let pending = this.inflight.get(keyId);
    if (!pending) {
      pending = this.fetch(keyId).finally(() => this.inflight.delete(keyId));
      this.inflight.set(keyId, pending);
    }
    return pending;
  }

  /** Called once a signature has verified with `keyId`. */
  confirm(keyId: number): void {
    if (this.currentId === keyId) return;
    this.currentId = keyId;
    for (const id of [...this.keys.keys()]) if (id !== keyId) this.keys.delete(id);
  }

  private async fetch(keyId: number): Promise<KeyObject> {
    try {
      const key = createPublicKey(await this.options.fetchKey(keyId));
      this.keys.set(keyId, { key, fetchedAt: this.options.clock() });
      this.refused.delete(keyId);
      return key;
    } catch (error) {
      this.refused.set(keyId, this.options.clock());
      if (this.refused.size > 1_000) this.refused.delete(this.refused.keys().next().value!);
      throw error;
    }
  }
}
