import type { ClaimOutcome, DeliveryScope } from '../event-log/delivery-marks.js';

/**
 * Hashes of webhook bodies, in two phases (the idempotency-key pattern of payment APIs). The
 * platform signs no timestamp, so a redelivery is byte-identical. A claim marks a body *in
 * progress* for a short lease; it turns *done*, for longer than the sender's three-day retry
 * horizon, only in the atomic step that stores the delivery (the event log's append, the
 * dead-letter write), so "stored" and "done" never disagree: a claim whose write timed out, ran
 * late or never ran leaves either nothing done or a stored event, never a "duplicate" answer for
 * an event nobody received. A lease that runs out (the instance died, the store stalled) lets the
 * platform's next retry process the body.
 */
export interface DeliveryLedger {
  /**
   * With `reclaimDone`, a body done before is claimed again: a webhook judged by its content may
   * repeat its bytes for a new change, and its event log append decides whether it is new.
   */
  claim(scope: DeliveryScope, bodyHash: string, reclaimDone?: boolean): Promise<ClaimOutcome>;
  /** Gives an unfinished claim back (only while it is still this token's and not done). */
  release(scope: DeliveryScope, bodyHash: string, token: string): Promise<void>;
}

/** The platform stops waiting for a webhook's answer after 5 s: a handler still at work past that has been retried anyway. */
const PLATFORM_ANSWER_DEADLINE_MS = 5_000;

/**
 * How long an in-progress claim holds: lease = 5 s (the platform's answer deadline) + 2 × the
 * store's command timeout (the claim's own write may be applied up to one timeout late, and the
 * final write may take one more). Past it, the processing request has answered or given up, and
 * a write of its that runs later is harmless: the stores skip a delivery already marked done.
 * With REDIS_COMMAND_TIMEOUT_MS=1000: 7 s.
 */
export function deliveryLeaseMs(commandTimeoutMs: number): number {
  return PLATFORM_ANSWER_DEADLINE_MS + 2 * commandTimeoutMs;
}
