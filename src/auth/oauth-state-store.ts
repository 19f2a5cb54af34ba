import { LRUCache } from 'lru-cache';
import { randomToken, sha256Hex } from '../lib/ids.js';

interface PendingSignIn {
  /** Digest of the browser-binding cookie that was set when this state was issued. */
  bindingDigest: string;
  returnTo: string;
}

export type StateCheck =
  | { ok: true; returnTo: string }
  | { ok: false; reason: 'missing' | 'unknown' | 'foreign' };

/**
 * OAuth `state` values: unguessable, single use, short-lived, and bound to the browser that
 * started the sign-in (through a separate cookie), so a state lifted from one browser's URL is
 * useless in another. Bounded, so a flood of /auth/login calls cannot grow memory without limit.
 */
export class OAuthStateStore {
  private readonly pending: LRUCache<string, PendingSignIn>;

  constructor(options: { ttlMs: number; maxPending: number }) {
    this.pending = new LRUCache({ max: options.maxPending, ttl: options.ttlMs, ttlAutopurge: false });
  }

  issue(browserBinding: string, returnTo: string): string {
    const state = randomToken();
    this.pending.set(sha256Hex(state), { bindingDigest: sha256Hex(browserBinding), returnTo });
    return state;
  }

  /** Checks and burns a state: whatever the outcome, it cannot be presented again. */
  consume(state: string | null, browserBinding: string | undefined): StateCheck {
    if (!state) return { ok: false, reason: 'missing' };
    const key = sha256Hex(state);
    const entry = this.pending.get(key);
    if (!entry) return { ok: false, reason: 'unknown' };
    this.pending.delete(key);
    if (!browserBinding || sha256Hex(browserBinding) !== entry.bindingDigest) return { ok: false, reason: 'foreign' };
    return { ok: true, returnTo: entry.returnTo };
  }
}
