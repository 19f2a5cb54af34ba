import { describe, expect, it } from 'vitest';
import { StreamHandle } from '../../../src/server/http-subscriptions/stream-handle.js';

/** Results that never come, and a record of whether they were let go. */
function idleResults() {
  const state = { returned: false };
  const results: AsyncIterableIterator<never> = {
    next: () => new Promise(() => undefined),
    return: async () => {
      state.returned = true;
      return { done: true, value: undefined };
    },
    [Symbol.asyncIterator]: () => results,
  };
  return { results, state };
}

describe('a subscription stream', () => {
  it("ends with UNAUTHENTICATED (TOKEN_EXPIRED) when its access token's time is up, and lets its subscription go", async () => {
    const handle = new StreamHandle((errors) => errors.map((error) => error.toJSON()), {});
    const { results, state } = idleResults();
    handle.attach(results);
    const closed = new Promise((resolve) => handle.once('close', resolve));
    handle.endAt(5);
    const frames = handle.frames();
    expect((await frames.next()).value).toEqual({
      end: [expect.objectContaining({ extensions: { code: 'UNAUTHENTICATED', reason: 'TOKEN_EXPIRED' } })],
    });
    await closed;
    expect(state.returned).toBe(true);
    expect((await frames.next()).done).toBe(true);
  });

  it('ends with the coded reason the session registry gives, once', async () => {
    const handle = new StreamHandle((errors) => errors.map((error) => error.toJSON()), {});
    handle.attach(idleResults().results);
    handle.close(4401, 'Session ended');
    handle.close(1001, 'Going away');
    const frames = handle.frames();
    expect((await frames.next()).value).toEqual({
      end: [expect.objectContaining({ extensions: { code: 'UNAUTHENTICATED', reason: 'SESSION_ENDED' } })],
    });
    expect((await frames.next()).done).toBe(true);
  });
});
