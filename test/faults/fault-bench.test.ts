import { afterAll, describe, it } from 'vitest';
import { FAULT_BENCH_CASES, faultTable, type FaultRow } from '../../bench/faults.bench.js';

/**
 * The fault benchmark's runner (`npm run bench:faults` sets FAULTS_BENCH=1); skipped in `npm test`.
 * One test per fault, so each fault's processes are stopped before the next starts.
 */
describe.runIf(process.env.FAULTS_BENCH === '1')('the fault benchmark', () => {
  const rows: FaultRow[] = [];
  for (const { fault, run } of FAULT_BENCH_CASES)
    // A benchmark prints its table (afterAll); judging the figures is the reader's, not a test's.
    // oxlint-disable-next-line vitest/expect-expect
    it(`runs the stream through: ${fault}`, async () => {
      rows.push({ fault, report: await run() });
    }, 600_000);
  afterAll(() => {
    process.stdout.write(`\n${faultTable(rows)}\n\n`);
    for (const { fault, report } of rows)
      process.stdout.write(
        `${fault}: lost ${report.lost.length} (${report.acknowledgedAsDuplicateNeverStored.length} answered "duplicate" yet never stored), duplicated ${JSON.stringify(report.duplicated.slice(0, 6))}, stored twice ${report.storedTwice.length}, never acknowledged ${report.unacknowledged.length}, refused attempts ${report.refusedAttempts}, resumed after EVENTS_DROPPED ${report.resumedAfterDrop}, silent live subscribers ${JSON.stringify(report.subscribersSilent)}, ended ${JSON.stringify(report.subscribersEnded)}\n`,
      );
  });
});
