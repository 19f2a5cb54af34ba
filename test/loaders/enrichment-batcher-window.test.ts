import { setImmediate as nextTurn } from 'node:timers/promises';
import { describe, expect, it } from 'vitest';
import { EnrichDocument } from '../__generated__/graphql.js';
import { createEnrichmentBatcher } from '../../src/loaders/enrichment-batcher.js';
import { enrichmentCacheKey, type EnrichmentLookup } from '../../src/loaders/enrichment-lookup.js';
import { JoinableRequests } from '../../src/loaders/request-activity.js';
import type { EnrichmentClient } from '../../src/upstream/enrichment-client.js';
import { execute, signIn, startGateway, type TestGateway } from '../support/gateway.js';

const searches = (gateway: TestGateway) =>
  gateway.sandbox.requests({ service: 'enrichment', method: 'POST', path: '/v1/search' });

/** A client that records each call's descriptions and answers every query at once. */
function recordingClient() {
  const calls: string[][] = [];
  const client: EnrichmentClient = {
    async search(queries) {
      calls.push(queries.map((query) => query.description));
      return queries.map((query) => ({ id: query.id, query: query.description, results: [] }));
    },
  };
  return { client, calls };
}

/** A window no test waits out: a call sent before it ends was sent because nothing could join. */
const LONG_WINDOW_MS = 60_000;

function batcherWith(joinable: JoinableRequests, windowMs = LONG_WINDOW_MS) {
  const { client, calls } = recordingClient();
  const batcher = createEnrichmentBatcher({ client, maxBatch: 100, windowMs, joinable });
  const search = (...descriptions: string[]) => {
    const lookups: EnrichmentLookup[] = descriptions.map((description) => ({ description }));
    return batcher.search(lookups, lookups.map(enrichmentCacheKey));
  };
  return { search, calls };
}

describe('the cross-request window waits only while a request could still join', () => {
  it('sends on the next turn when no other request is in flight', async () => {
    const { search, calls } = batcherWith(new JoinableRequests());
    const answered = search('a', 'b');
    await nextTurn();
    expect(calls).toEqual([['a', 'b']]);
    await answered;
  });

  it('waits for a request in flight to queue its lookups, then sends both in one call', async () => {
    const joinable = new JoinableRequests();
    const { search, calls } = batcherWith(joinable);
    const [first, second] = [{}, {}];
    joinable.count(first);
    joinable.count(second);
    const answers = [search('a')];
    joinable.uncount(first);
    await nextTurn();
    await nextTurn();
    expect(calls).toEqual([]); // the second request may still add lookups
    answers.push(search('b'));
    joinable.uncount(second);
    await Promise.all(answers);
    expect(calls).toEqual([['a', 'b']]);
  });

  it('sends once the only other request in flight finishes without lookups', async () => {
    const joinable = new JoinableRequests();
    const { search, calls } = batcherWith(joinable);
    const other = {};
    joinable.count(other);
    const answered = search('a');
    await nextTurn();
    expect(calls).toEqual([]);
    joinable.uncount(other);
    joinable.uncount(other); // a second uncount changes nothing
    await answered;
    expect(calls).toEqual([['a']]);
    expect(joinable.pending).toBe(0);
  });

  it('never waits longer than the window for a request that never queues', async () => {
    const joinable = new JoinableRequests();
    const { search, calls } = batcherWith(joinable, 30);
    joinable.count({});
    const started = performance.now();
    await search('a');
    expect(calls).toEqual([['a']]);
    expect(performance.now() - started).toBeGreaterThanOrEqual(25);
  });

  it('fails the lookups of a call that throws before it reaches the platform, and sends the next one', async () => {
    const { client, calls } = recordingClient();
    let broken = true;
    const batcher = createEnrichmentBatcher({
      client,
      maxBatch: 100,
      windowMs: 5,
      onCall: () => {
        if (broken) throw new Error('metric failed');
      },
    });
    const lookup = { description: 'a' };
    const [outcome] = await batcher.search([lookup], [enrichmentCacheKey(lookup)]);
    expect(outcome).toBeInstanceOf(Error);
    broken = false;
    const [retried] = await batcher.search([lookup], [enrichmentCacheKey(lookup)]);
    expect(retried).toEqual([]);
    expect(calls).toEqual([['a']]);
  });

  it('waits the whole window when it is not told which requests are in flight', async () => {
    const { client, calls } = recordingClient();
    const batcher = createEnrichmentBatcher({ client, maxBatch: 100, windowMs: 30 });
    const started = performance.now();
    await batcher.search([{ description: 'a' }], [enrichmentCacheKey({ description: 'a' })]);
    expect(calls).toEqual([['a']]);
    expect(performance.now() - started).toBeGreaterThanOrEqual(25);
  });
});

describe('a lone request through the gateway', () => {
  it('is answered without waiting out the window, in one call each', async () => {
    const gateway = await startGateway({ ENRICHMENT_CACHE_TTL_SECONDS: '0', ENRICHMENT_BATCH_WINDOW_MS: '100' });
    const browser = await signIn(gateway);
    const before = searches(gateway).length;
    const durations: number[] = [];
    for (let n = 0; n < 5; n += 1) {
      const started = performance.now();
      const answer = await execute(gateway, browser, EnrichDocument, {
        queries: [{ id: `alone-${n}`, description: `WOOLWORTHS NZ/${n} PONSONBY AUCKLAND` }],
      });
      durations.push(performance.now() - started);
      expect(answer.errors).toBeUndefined();
      expect(answer.data!.enrich![0]!.merchant?.name).toBe('Woolworths');
    }
    expect(searches(gateway).length - before).toBe(5);
    // A window that waits in full never answers in less than its 100 ms.
    expect(Math.min(...durations)).toBeLessThan(100);
  });
});
