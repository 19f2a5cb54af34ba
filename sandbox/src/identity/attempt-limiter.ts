import type { Clock } from '@open-finance-gateway/common/clock';

const WINDOW_MS = 60_000;

/**
 * Limits guesses of a knowledge factor: `perMinute` attempts a minute per account and, separately,
 * per client address; `lockAfter` failures in a row lock the account for `lockMs` whatever the
 * address. A success clears the account's failures and is not counted.
 */
export class AttemptLimiter {
  private readonly attempts = new Map<string, number[]>();
  private readonly failures = new Map<string, number>();
  private readonly lockedUntil = new Map<string, number>();

  constructor(
    private readonly clock: Clock,
    private readonly options = { perMinute: 5, lockAfter: 10, lockMs: 15 * 60_000 },
  ) {}

  /** Whether another attempt may be made now; counts it if so. */
  admit(
    account: string,
    address: string,
  ): { ok: true } | { ok: false; reason: 'locked' | 'rate'; retryAfterMs: number } {
    const now = this.clock();
    const locked = this.lockedUntil.get(account);
    if (locked !== undefined && locked > now) return { ok: false, reason: 'locked', retryAfterMs: locked - now };
    for (const key of [`account:${account}`, `address:${address}`]) {
      const recent = (this.attempts.get(key) ?? []).filter((at) => at > now - WINDOW_MS);
      this.attempts.set(key, recent);
      if (recent.length >= this.options.perMinute)
        return { ok: false, reason: 'rate', retryAfterMs: recent[0]! + WINDOW_MS - now };
    }
    for (const key of [`account:${account}`, `address:${address}`]) this.attempts.get(key)!.push(now);
    return { ok: true };
  }

  failed(account: string): void {
    const count = (this.failures.get(account) ?? 0) + 1;
    this.failures.set(account, count);
    if (count >= this.options.lockAfter) {
      this.lockedUntil.set(account, this.clock() + this.options.lockMs);
      this.failures.delete(account);
    }
  }

  /**
   * A right guess: the account's failures are cleared, and the attempt no longer counts against
   * the per-minute limits (they bound guessing; a person signing in often is not guessing).
   */
  succeeded(account: string, address: string): void {
    this.failures.delete(account);
    for (const key of [`account:${account}`, `address:${address}`]) this.attempts.get(key)?.pop();
  }
}
