import type { Clock } from '@open-finance-gateway/common/clock';
import type { Logger } from '@open-finance-gateway/common/logger';
import { DEAD_LETTER_PREVIEW_BYTES, type DeadLetterStore } from './dead-letter-store.js';
import { runClaimed, type InProgress } from './delivery-claim.js';
import type { DeliveryLedger } from './delivery-ledger.js';

export interface DeadLetteringOptions {
  ledger: DeliveryLedger;
  deadLetters: DeadLetterStore;
  clock: Clock;
}

/**
 * Keeps a verified body that cannot be understood as a dead letter, once (under a claim in the
 * dead letters' scope): redelivering the same bytes for three days would not make it
 * understandable, so it is acknowledged and kept for an operator to read.
 */
export function deadLetter(
  options: DeadLetteringOptions,
  raw: Buffer,
  hash: string,
  reason: string,
  log: Logger,
): Promise<string | InProgress> {
  const letter = {
    receivedAt: new Date(options.clock()).toISOString(),
    bodyHash: hash,
    reason,
    bodyBytes: raw.length,
    bodyPreview: raw.subarray(0, DEAD_LETTER_PREVIEW_BYTES).toString('utf8'),
  };
  return runClaimed(options.ledger, 'dead-letters', hash, async () => {
    if (!(await options.deadLetters.add(letter))) return 'duplicate';
    log.error(
      { bodyHash: hash, reason, bytes: raw.length },
      'verified webhook is not a JSON object: acknowledged and kept as a dead letter',
    );
    return 'dead-lettered';
  });
}
