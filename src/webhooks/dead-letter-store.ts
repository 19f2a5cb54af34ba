/**
 * Verified webhooks the gateway could not understand (a signed body that is not a JSON object).
 * They are acknowledged, because the platform would otherwise redeliver them for three days, and
 * kept here, bounded, for an operator to read (`GET /admin/webhooks/dead-letters`).
 */
export interface DeadLetter {
  receivedAt: string;
  /** SHA-256 of the raw body: the delivery ledger's key, to match it with logs. */
  bodyHash: string;
  reason: string;
  bodyBytes: number;
  /** The start of the body as text, capped; it was signed by the platform, so it is its own words. */
  bodyPreview: string;
}

export interface DeadLetterStore {
  /**
   * Keeps the letter and marks its body done in the delivery ledger, as one atomic step; a body
   * already done keeps nothing more (false), so a late-running write after a retry adds no copy.
   */
  add(letter: DeadLetter): Promise<boolean>;
  /** Newest first. */
  list(): Promise<DeadLetter[]>;
}

export const DEAD_LETTER_PREVIEW_BYTES = 2_048;
