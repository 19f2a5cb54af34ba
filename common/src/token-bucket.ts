import type { Clock } from './clock.js';

/**
 * A token bucket: up to `capacity` at once, refilled continuously at `capacity` per `periodMs`.
 * Bounds how often something attacker-triggered may happen, whatever the burst.
 */
export class TokenBucket {
  private tokens: number;
  private updatedAt: number;

  constructor(
    private readonly capacity: number,
    private readonly periodMs: number,
    private readonly clock: Clock,
  ) {
    this.tokens = capacity;
    this.updatedAt = clock();
  }

  /** Takes one token if there is one. */
  take(): boolean {
    const now = this.clock();
    const elapsed = Math.max(0, now - this.updatedAt);
    this.tokens = Math.min(this.capacity, this.tokens + (elapsed * this.capacity) / this.periodMs);
    this.updatedAt = now;
    if (this.tokens < 1) return false;
    this.tokens -= 1;
    return true;
  }
}
