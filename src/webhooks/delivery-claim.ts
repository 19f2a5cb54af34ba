import { setTimeout as sleep } from 'node:timers/promises';
import type { DeliveryScope } from '../event-log/delivery-marks.js';
import type { DeliveryLedger } from './delivery-ledger.js';

/** Another request holds the body's claim: retry after this long. */
export interface InProgress {
  retryAfterMs: number;
}

/**
 * How long a body judged by its content waits for another request processing the same bytes, and
 * how often it looks: the wait and then its own processing (one platform read, at most 2.5 s) stay
 * well inside the 5 s the platform waits for an answer.
 */
const IN_PROGRESS_WAIT_MS = 1_500;
const IN_PROGRESS_POLL_MS = 50;

/**
 * Runs `store` under a claim of the body (see DeliveryLedger). A body stored before is a
 * duplicate (its idempotent side effects redone), unless `reclaimDone` (a body judged by its
 * content: `store` then decides); a failure gives the claim back, so the platform's retry is
 * processed (and were the claim not given back, its lease runs out). A body judged by its content
 * that another request is processing may be a new change a moment after the first (two balance
 * changes a second apart are the same bytes): it waits briefly for the other to finish and is then
 * processed itself, rather than answered 503 and retried by the platform an hour later.
 */
export async function runClaimed(
  ledger: DeliveryLedger,
  scope: DeliveryScope,
  hash: string,
  store: () => Promise<string>,
  redo?: () => Promise<void>,
  reclaimDone = false,
): Promise<string | InProgress> {
  let claim = await ledger.claim(scope, hash, reclaimDone);
  for (let waited = 0; claim.state === 'in-progress' && reclaimDone && waited < IN_PROGRESS_WAIT_MS;) {
    await sleep(IN_PROGRESS_POLL_MS);
    waited += IN_PROGRESS_POLL_MS;
    claim = await ledger.claim(scope, hash, reclaimDone);
  }
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
