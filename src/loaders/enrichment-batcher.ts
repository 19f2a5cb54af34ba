import type { EnrichmentClient } from '../upstream/enrichment-client.js';
import type { PlatformEnrichmentQuery, PlatformEnrichmentResult } from '../upstream/platform-types.js';
import { UpstreamError } from '../upstream/upstream-error.js';
import type { EnrichmentLookup } from './enrichment-lookup.js';
import type { JoinableRequests } from './request-activity.js';

type Outcome = readonly PlatformEnrichmentResult[] | Error;

/** Sends enrichment lookups to `/v1/search`; each lookup gets its results or the error of its call. */
export interface EnrichmentBatcher {
  /**
   * `keys[i]` identifies `lookups[i]` (enrichmentCacheKey): identical lookups share one key. A call
   * shared by several requests carries the id of the request that opened it.
   */
  search(lookups: readonly EnrichmentLookup[], keys: readonly string[], requestId?: string): Promise<Outcome[]>;
}

/** Fields set one by one rather than spread in: three spreads made three objects per lookup. */
function toQuery(lookup: EnrichmentLookup, id: string): PlatformEnrichmentQuery {
  const query: PlatformEnrichmentQuery = { id, description: lookup.description };
  if (lookup.bankId !== undefined) query._connection = lookup.bankId;
  if (lookup.amount !== undefined) query.amount = lookup.amount;
  if (lookup.direction !== undefined) query.direction = lookup.direction;
  return query;
}

/**
 * One `/v1/search` call for these lookups. Correlation ids are assigned here, per call, and results
 * matched by them, never by position; no caller ever sees the ids (or the lookups) of another.
 */
async function searchOnce(
  client: EnrichmentClient,
  lookups: readonly EnrichmentLookup[],
  requestId: string | undefined,
  onCall?: (size: number) => void,
): Promise<Outcome[]> {
  onCall?.(lookups.length);
  const queries = lookups.map((lookup, index) => toQuery(lookup, queryId(index)));
  let items;
  try {
    items = await client.search(queries, requestId);
  } catch (error) {
    return lookups.map(() => error as Error);
  }
  const outcomes: Array<Outcome | undefined> = [];
  for (const item of items) {
    const index = item.id === undefined ? -1 : positionOf(item.id, lookups.length);
    if (index >= 0) outcomes[index] = item.results;
  }
  for (let index = 0; index < lookups.length; index += 1)
    outcomes[index] ??= new UpstreamError(
      'enrichment',
      'bad_response',
      `search response has no item for query ${queryId(index)}`,
    );
  return outcomes as Outcome[];
}

/** `q0`, `q1`, …: a call's correlation ids, made once per process instead of once per lookup. */
const queryIds: string[] = [];
const queryId = (index: number): string => (queryIds[index] ??= `q${index}`);

/** The position of the query a correlation id names, or -1 for an id no query of the call had. */
function positionOf(id: string, count: number): number {
  const index = Number(id.slice(1));
  return Number.isInteger(index) && index >= 0 && index < count && id === queryId(index) ? index : -1;
}

/**
 * Enrichment lookups of concurrent requests share calls. With a window, the first lookup opens a
 * call that waits for others (from any request) only while another request could still join it:
 * it goes out on the next turn of the event loop once no request counted in `joinable` is left
 * (each has queued its lookups or finished), at once when it holds `maxBatch` distinct lookups,
 * and never later than `windowMs` after it opened. The turn lets requests whose bytes have
 * arrived meanwhile be counted. A lookup identical to one already waiting or in flight joins it
 * instead of being sent again. Enrichment carries no user data, so this is safe; each request
 * keeps its own budget (the loader's), and a failed call fails only the lookups that were in it.
 * A window of 0 sends each request's batch on its own.
 */
export function createEnrichmentBatcher(options: {
  client: EnrichmentClient;
  maxBatch: number;
  windowMs: number;
  /** The requests that may still add lookups; without it, a call waits for its whole window. */
  joinable?: JoinableRequests;
  onCall?: (size: number) => void;
}): EnrichmentBatcher {
  if (options.windowMs <= 0)
    return { search: (lookups, _keys, requestId) => searchOnce(options.client, lookups, requestId, options.onCall) };

  /** Lookups waiting for the window, or in flight: by key, their call and position in it. */
  const known = new Map<string, Slot>();
  let forming: Call | undefined;

  function send(): void {
    const call = forming!;
    forming = undefined;
    clearTimeout(call.timer);
    const settle = (outcomes: Outcome[]) => {
      for (const key of call.keys) known.delete(key);
      call.answer(outcomes);
    };
    // searchOnce answers an upstream failure per lookup; anything else it throws (a metric's
    // callback) must fail the call's lookups too, or they and every later identical lookup would wait forever.
    searchOnce(options.client, call.lookups, call.requestId, options.onCall).then(settle, (error: unknown) =>
      settle(call.lookups.map(() => (error instanceof Error ? error : new Error(String(error))))),
    );
  }

  /** The check scheduled for the next turn, if any. */
  let nextTurn: NodeJS.Immediate | undefined;
  const joinable = options.joinable;
  /** Sends the forming call on the next turn if, by then, no request could still join it. */
  function sendWhenNothingCanJoin(): void {
    if (!joinable || !forming || nextTurn || joinable.pending > 0) return;
    nextTurn = setImmediate(() => {
      nextTurn = undefined;
      if (forming && joinable.pending === 0) send();
    });
  }
  joinable?.onQuiet(sendWhenNothingCanJoin);

  function openCall(requestId: string | undefined): Call {
    let answer!: (outcomes: Outcome[]) => void;
    const outcomes = new Promise<Outcome[]>((resolve) => (answer = resolve));
    return { lookups: [], keys: [], outcomes, answer, timer: setTimeout(send, options.windowMs), requestId };
  }

  function join(lookup: EnrichmentLookup, key: string, requestId: string | undefined): Slot {
    const existing = known.get(key);
    if (existing) return existing;
    const call = (forming ??= openCall(requestId));
    const slot = { call, index: call.lookups.push(lookup) - 1 };
    call.keys.push(key);
    known.set(key, slot);
    if (call.lookups.length >= options.maxBatch) send();
    return slot;
  }

  return {
    search: (lookups, keys, requestId) => {
      const slots = lookups.map((lookup, index) => join(lookup, keys[index]!, requestId));
      sendWhenNothingCanJoin();
      return outcomesOf(slots);
    },
  };
}

/** A call forming or in flight; its lookups' outcomes settle together, in one promise. */
interface Call {
  lookups: EnrichmentLookup[];
  keys: string[];
  outcomes: Promise<Outcome[]>;
  answer: (outcomes: Outcome[]) => void;
  timer: NodeJS.Timeout;
  requestId: string | undefined;
}

/** Where a lookup's outcome will be. */
interface Slot {
  call: Call;
  index: number;
}

/**
 * Each slot's outcome once its call has answered: one await per run of slots in one call (usually
 * one, more when some lookups joined calls of other requests). A promise per lookup settled one by
 * one, under a `Promise.all`, was about 3% of `enrich(1000)`'s CPU in a profile, before collection.
 */
async function outcomesOf(slots: readonly Slot[]): Promise<Outcome[]> {
  let call = slots[0]?.call;
  let answered = call && (await call.outcomes);
  const outcomes: Outcome[] = [];
  for (const slot of slots) {
    if (slot.call !== call) {
      call = slot.call;
      answered = await call.outcomes;
    }
    outcomes.push(answered![slot.index]!);
  }
  return outcomes;
}
