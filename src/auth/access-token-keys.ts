import { importJWK, type CryptoKey, type JWK } from 'jose';
import type { Clock } from '@open-finance-gateway/common/clock';
import { TokenBucket } from '@open-finance-gateway/common/token-bucket';
import { KeyLookupError } from './access-token.js';

export interface AccessTokenKeysOptions {
  /** The issuer's JWKS document (parsed JSON); throws when it cannot be had. */
  fetchJwks(): Promise<unknown>;
  clock: Clock;
  /** Refetches for a key id not held, per minute (ACCESS_TOKEN_KEY_FETCHES_PER_MINUTE). */
  unknownFetchesPerMinute: number;
  /** How long a fetched set is used before it is fetched again. @default 10 minutes */
  ttlMs?: number;
  /** A key id that was still unknown after a refetch is not refetched for again this long. @default 60 seconds */
  negativeTtlMs?: number;
  /** After a failed fetch with no keys held, the next try waits this long. @default 5 seconds */
  retryAfterFailureMs?: number;
}

interface HeldKey {
  jwk: JWK;
  /** Imported per algorithm on first use. */
  imported: Map<string, CryptoKey>;
}

const MIN_RSA_BITS = 2048;
/** Which key type each algorithm family signs with. */
const KTY_OF: Record<string, string> = { RS: 'RSA', PS: 'RSA', ES: 'EC', Ed: 'OKP' };

/**
 * The issuer's signing keys for access tokens, with the webhook key cache's discipline: the key
 * id is attacker input, so
 * - a held key answers at once; the set is fetched again every `ttlMs`, one fetch shared by all;
 * - an id not held costs a token from a budget (`unknownFetchesPerMinute`) and triggers at most
 *   one shared refetch; an id still unknown after one is not refetched for again for a minute;
 * - a failed or empty fetch leaves the held keys as they were: a bad id never evicts a good key;
 * - only asymmetric signing keys (RSA of at least 2048 bits, EC, OKP) are ever used.
 */
export class AccessTokenKeys {
  private keys: HeldKey[] | undefined;
  private fetchedAt = 0;
  private failedAt: number | undefined;
  private inflight: Promise<void> | undefined;
  private readonly refused = new Map<string, number>();
  private readonly budget: TokenBucket;

  constructor(private readonly options: AccessTokenKeysOptions) {
    this.budget = new TokenBucket(options.unknownFetchesPerMinute, 60_000, options.clock);
  }

  /** jose's key resolver: the key for this header, or KeyLookupError. */
  readonly resolve = async (header: { kid?: string; alg?: string }): Promise<CryptoKey> => {
    const alg = header.alg ?? '';
    const now = this.options.clock();
    if (!this.keys || now - this.fetchedAt >= (this.options.ttlMs ?? 600_000)) await this.scheduledRefresh(now);
    if (!this.keys) throw new KeyLookupError('keys_unavailable');
    const held = this.find(header.kid, alg);
    if (held) return this.import(held, alg);
    const kid = header.kid ?? '';
    const refusedAt = this.refused.get(kid);
    if (refusedAt !== undefined && now - refusedAt < (this.options.negativeTtlMs ?? 60_000))
      throw new KeyLookupError('key_unknown');
    if (!this.inflight && !this.budget.take()) throw new KeyLookupError('key_budget');
    await this.refresh();
    const found = this.find(header.kid, alg);
    if (found) return this.import(found, alg);
    this.remember(kid);
    throw new KeyLookupError('key_unknown');
  };

  /** The periodic fetch (and the first): outside the budget, but not retried in a loop after a failure. */
  private async scheduledRefresh(now: number): Promise<void> {
    if (this.failedAt !== undefined && now - this.failedAt < (this.options.retryAfterFailureMs ?? 5_000)) return;
    await this.refresh();
  }

  /** One fetch at a time, shared; only a usable set replaces the held one. */
  private refresh(): Promise<void> {
    this.inflight ??= this.options
      .fetchJwks()
      .then((document) => {
        const keys = usableKeys(document);
        if (keys.length === 0) throw new Error('the JWKS holds no usable signing key');
        this.keys = keys.map((jwk) => ({ jwk, imported: new Map() }));
        this.fetchedAt = this.options.clock();
        this.failedAt = undefined;
      })
      .catch(() => {
        this.failedAt = this.options.clock();
      })
      .finally(() => {
        this.inflight = undefined;
      });
    return this.inflight;
  }

  private find(kid: string | undefined, alg: string): HeldKey | undefined {
    const kty = KTY_OF[alg.slice(0, 2)];
    const fits = (this.keys ?? []).filter(({ jwk }) => jwk.kty === kty && (jwk.alg === undefined || jwk.alg === alg));
    if (kid !== undefined) return fits.find(({ jwk }) => jwk.kid === kid);
    // No kid: only an unambiguous key will do.
    return fits.length === 1 ? fits[0] : undefined;
  }

  private async import(held: HeldKey, alg: string): Promise<CryptoKey> {
    const cached = held.imported.get(alg);
    if (cached) return cached;
    if (held.jwk.kty === 'RSA' && Buffer.from(held.jwk.n ?? '', 'base64url').length * 8 < MIN_RSA_BITS)
      throw new KeyLookupError('key_unknown');
    let key: CryptoKey;
    try {
      key = (await importJWK(held.jwk, alg)) as CryptoKey;
    } catch {
      throw new KeyLookupError('key_unknown');
    }
    held.imported.set(alg, key);
    return key;
  }

  private remember(kid: string): void {
    this.refused.set(kid, this.options.clock());
    if (this.refused.size > 1_000) this.refused.delete(this.refused.keys().next().value!);
  }
}

/** Public signing keys of an asymmetric type; anything else in the set is ignored. */
function usableKeys(document: unknown): JWK[] {
  const keys = (document as { keys?: unknown } | undefined)?.keys;
  if (!Array.isArray(keys)) return [];
  return keys.filter(
    (key): key is JWK =>
      typeof key === 'object' &&
      key !== null &&
      ['RSA', 'EC', 'OKP'].includes((key as JWK).kty ?? '') &&
      ((key as JWK).use === undefined || (key as JWK).use === 'sig') &&
      (key as JWK).d === undefined,
  );
}
