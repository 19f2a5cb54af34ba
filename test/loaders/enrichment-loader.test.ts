import { describe, expect, it } from 'vitest';
import type { EnrichmentBatcher } from '../../src/loaders/enrichment-batcher.js';
import { createEnrichmentCache } from '../../src/loaders/enrichment-cache.js';
import { createEnrichmentLoader } from '../../src/loaders/enrichment-loader.js';
import type { EnrichmentLookup } from '../../src/loaders/enrichment-lookup.js';
import { RequestActivity } from '../../src/loaders/request-activity.js';
import type { PlatformEnrichmentResult } from '../../src/upstream/platform-types.js';
import { UpstreamError } from '../../src/upstream/upstream-error.js';

/** A result that names the description it answers, so a mix-up shows. */
const resultFor = (description: string): PlatformEnrichmentResult[] => [
  { confidence: 0.9, category: { _id: 'cat', name: description, groups: {} } },
];

/** A batcher that records each call's descriptions and fails the lookups `failing` names. */
function recordingBatcher(failing: (description: string) => boolean = () => false) {
  const calls: string[][] = [];
  const batcher: EnrichmentBatcher = {
    async search(lookups) {
      calls.push(lookups.map((lookup) => lookup.description));
      return lookups.map((lookup) =>
        failing(lookup.description)
          ? new UpstreamError('enrichment', 'unavailable', `no answer for ${lookup.description}`)
          : resultFor(lookup.description),
      );
    },
  };
  return { batcher, calls };
}

function loaderWith(batcher: EnrichmentBatcher, extra: Partial<Parameters<typeof createEnrichmentLoader>[0]> = {}) {
  const activity = new RequestActivity();
  const loader = createEnrichmentLoader({
    batcher,
    cache: undefined,
    maxBatch: 3,
    maxLookupsPerRequest: 100,
    whenIdle: (dispatch) => activity.whenIdle(dispatch),
    ...extra,
  });
  return { loader, activity };
}

const lookups = (...descriptions: string[]): EnrichmentLookup[] => descriptions.map((description) => ({ description }));
const names = (answers: ReadonlyArray<readonly PlatformEnrichmentResult[]>) =>
  answers.map((results) => results[0]!.category.name);

describe('the request enrichment loader', () => {
  it('sends the lookups of load and loadAll together, once each, in calls of at most the batch limit', async () => {
    const { batcher, calls } = recordingBatcher();
    const { loader } = loaderWith(batcher);
    const [all, one, again] = await Promise.all([
      loader.loadAll(lookups('a', 'b', 'a', 'c', 'd')),
      loader.load({ description: 'e' }),
      loader.load({ description: 'b' }),
    ]);
    expect(names(all)).toEqual(['a', 'b', 'a', 'c', 'd']);
    expect(names([one, again])).toEqual(['e', 'b']);
    expect(calls).toEqual([
      ['a', 'b', 'c'],
      ['d', 'e'],
    ]);
  });

  it('keeps lookups that differ in amount, direction or connection apart', async () => {
    const { batcher, calls } = recordingBatcher();
    const { loader } = loaderWith(batcher, { maxBatch: 10 });
    await loader.loadAll([
      { description: 'x' },
      { description: 'x', amount: -5 },
      { description: 'x', amount: 5 },
      { description: 'x', direction: 'DEBIT' },
      { description: 'x', bankId: 'conn_a' },
      { description: 'x', amount: -5 },
    ]);
    expect(calls).toEqual([['x', 'x', 'x', 'x', 'x']]);
  });

  it('waits while the request has a read in flight, then sends what it added in the same call', async () => {
    const { batcher, calls } = recordingBatcher();
    const { loader, activity } = loaderWith(batcher, { maxBatch: 10 });
    let finishRead!: () => void;
    const read = activity.track(() => new Promise<void>((resolve) => (finishRead = resolve)));
    const first = loader.load({ description: 'before' });
    const later = read.then(() => loader.loadAll(lookups('after', 'before')));
    // The loader's idle check runs on the event loop's next turn (setImmediate); two turns later
    // it has run and, with the read in flight, sent nothing.
    for (let turn = 0; turn < 2; turn += 1) await new Promise((resolve) => setImmediate(resolve));
    expect(calls).toEqual([]);
    finishRead();
    expect(names([await first, ...(await later)])).toEqual(['before', 'after', 'before']);
    expect(calls).toEqual([['before', 'after']]);
  });

  it('answers a lookup sent by an earlier batch of the request without sending it again', async () => {
    const { batcher, calls } = recordingBatcher();
    const { loader } = loaderWith(batcher);
    await loader.loadAll(lookups('a', 'b'));
    expect(names(await loader.loadAll(lookups('b', 'c', 'a')))).toEqual(['b', 'c', 'a']);
    expect(calls).toEqual([['a', 'b'], ['c']]);
  });

  it('fails loadAll with a failed lookup’s error, and only the loads of that lookup', async () => {
    const { batcher } = recordingBatcher((description) => description === 'bad');
    const { loader } = loaderWith(batcher);
    const [all, bad, good] = await Promise.allSettled([
      loader.loadAll(lookups('ok', 'bad')),
      loader.load({ description: 'bad' }),
      loader.load({ description: 'ok' }),
    ]);
    expect(all).toMatchObject({ status: 'rejected', reason: { message: 'no answer for bad' } });
    expect(bad).toMatchObject({ status: 'rejected', reason: { message: 'no answer for bad' } });
    expect(good).toMatchObject({ status: 'fulfilled' });
  });

  it('fails every lookup of a call whose batcher throws, and no other', async () => {
    const calls: string[][] = [];
    const batcher: EnrichmentBatcher = {
      async search(batch) {
        calls.push(batch.map((lookup) => lookup.description));
        if (batch.some((lookup) => lookup.description === 'd')) throw new Error('connection reset');
        return batch.map((lookup) => resultFor(lookup.description));
      },
    };
    const { loader } = loaderWith(batcher);
    const answers = await Promise.allSettled(
      ['a', 'b', 'c', 'd', 'e'].map((description) => loader.load({ description })),
    );
    expect(answers.map((answer) => answer.status)).toEqual([
      'fulfilled',
      'fulfilled',
      'fulfilled',
      'rejected',
      'rejected',
    ]);
    expect(calls).toHaveLength(2);
  });

  it('answers cached lookups without sending them, caches successes only, and counts each distinct lookup once', async () => {
    const { batcher, calls } = recordingBatcher((description) => description === 'bad');
    const cache = createEnrichmentCache({ ttlMs: 60_000, maxEntries: 100, clock: () => 0 });
    const counted: boolean[] = [];
    const first = loaderWith(batcher, { cache, onCacheLookup: (hit) => counted.push(hit) }).loader;
    await Promise.allSettled([first.loadAll(lookups('a', 'b', 'a')), first.load({ description: 'bad' })]);
    const second = loaderWith(batcher, { cache, onCacheLookup: (hit) => counted.push(hit) }).loader;
    await expect(second.loadAll(lookups('b', 'a', 'bad'))).rejects.toThrow('no answer for bad');
    expect(names(await second.loadAll(lookups('a', 'b')))).toEqual(['a', 'b']);
    expect(calls).toEqual([['a', 'b', 'bad'], ['bad']]);
    expect(counted).toEqual([false, false, false, true, true, false]);
  });
});
