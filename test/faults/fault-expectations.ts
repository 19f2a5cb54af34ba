import { expect } from 'vitest';
import type { FaultReport } from '../support/fault-run.js';

/**
 * The suite's one verdict: nothing acknowledged is lost, nothing is seen twice, every refusal is
 * retried to success, and no read after an acknowledged webhook shows older data (kept user data).
 */
export function expectNoLossNoDuplicate(report: FaultReport): void {
  expect(report.sent).toBeGreaterThan(0);
  expect(report.freshness.checked).toBeGreaterThan(0);
  expect({
    lost: report.lost,
    acknowledgedAsDuplicateNeverStored: report.acknowledgedAsDuplicateNeverStored,
    unacknowledged: report.unacknowledged,
    duplicated: report.duplicated,
    storedTwice: report.storedTwice,
    delivered: report.delivered,
    subscribersSilent: report.subscribersSilent,
    staleReads: report.freshness.stale,
  }).toEqual({
    lost: [],
    acknowledgedAsDuplicateNeverStored: [],
    unacknowledged: [],
    duplicated: [],
    storedTwice: [],
    delivered: report.sent,
    subscribersSilent: [],
    staleReads: [],
  });
}
