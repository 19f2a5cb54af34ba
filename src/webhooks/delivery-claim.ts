import type { DeliveryScope } from '../event-log/delivery-marks.js';
import type { DeliveryLedger } from './delivery-ledger.js';

/** Another request holds the body's claim: retry after this long. */
export interface InProgress {
  retryAfterMs: number;
}

/**
 * Runs `store` under a claim of the body (see DeliveryLedger). A body stored before is a
 * duplicate (its idempotent side effects redone), unless `reclaimDone` (a body judged by its
 * content: `store` then decides); a failure gives the claim back, so the platform's retry is
 * processed (and were the claim not given back, its lease runs out).
 */
export async function runClaimed(
  ledger: DeliveryLedger,
  scope: DeliveryScope,
  hash: string,
  store: () => Promise<string>,
  redo?: () => Promise<void>,
  reclaimDone = false,
): Promise<string | InProgress> {
  const claim = await ledger.claim(scope, hash, reclaimDone);
  if (claim.state === 'in-progress') return { retryAfterMs: claim.retryAfterMs };
  if (claim.state === 'done') {
    await redo?.();
    return 'duplicate';
  }
  try {
    return await store();
  } catch (error) {
    await ledger.release(scope, hash, claim.token).catch(() => undefined);
    throw error;
  }
}
