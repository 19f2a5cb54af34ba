import { describe, expect, it } from 'vitest';
import { SyncNotNowError, syncOf } from '../../src/loaders/transaction-sync.js';
import { LedgerBusyError } from '../../src/user-data/kept-ledger.js';
import type { UserKeptData } from '../../src/user-data/kept-reads.js';
import { VersionsMixedError } from '../../src/user-data/kept-sync.js';

const keptThrowing = (error: Error) => ({ sync: () => Promise.reject(error) }) as unknown as UserKeptData;

describe('transaction sync over the kept data', () => {
  it.each([
    ['a ledger that kept changing', new LedgerBusyError(), 'BUSY', 1],
    ['a rolling deploy', new VersionsMixedError(), 'VERSIONS_MIXED', 30],
  ] as const)('answers %s as a refusal for now, with when to ask again', async (_case, error, reason, retry) => {
    const refusal = await syncOf(keptThrowing(error))
      .since(undefined, 100, undefined)
      .catch((caught: unknown) => caught);
    expect(refusal).toBeInstanceOf(SyncNotNowError);
    expect(refusal).toMatchObject({ reason, retryAfterSeconds: retry });
  });
});
