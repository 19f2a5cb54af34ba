import { describe, expect, it } from 'vitest';
import { createLogger } from '@open-finance-gateway/common/logger';
import type { Session, SessionManager } from '../../../src/auth/session-manager.js';
import { GOING_AWAY, SESSION_ENDED } from '../../../src/operation-core/endings.js';
import { createLiveOperations } from '../../../src/operation-core/live-operations.js';
import { SubscriptionStream } from '../../../src/server/http-subscriptions/subscription-stream.js';

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

const session = { sessionKey: 'k', userId: 'u', expiresAt: Date.now() + 60_000, lastSeenAt: Date.now() } as Session;

/** A stream of `session`, and a promise of its end. */
function stream() {
  let finished!: () => void;
  const over = new Promise<void>((resolve) => (finished = resolve));
  const handle = new SubscriptionStream(session, {
    format: (errors) => errors.map((error) => error.toJSON()),
    onFinished: () => finished(),
  });
  return { handle, over };
}

describe('a subscription stream', () => {
  it("ends with UNAUTHENTICATED (TOKEN_EXPIRED) when its access token's time is up, and lets its subscription go", async () => {
    const sessions = {
      onEnded: () => () => undefined,
      deadlineOf: () => Date.now() + 60_000,
    } as unknown as SessionManager;
    const live = createLiveOperations({
      sessions,
      clock: Date.now,
      limits: { maxSubscriptionsPerSocket: 10, maxSocketsPerSession: 10, maxSocketsPerUser: 10, maxBufferedBytes: 1 },
      recheckMs: 60_000,
      logger: createLogger({ level: 'silent' }),
    });
    const { handle, over } = stream();
    const { results, state } = idleResults();
    handle.attach(results);
    expect(live.admit(session, handle, Date.now() + 5)).toBeUndefined();
    const frames = handle.frames();
    expect((await frames.next()).value).toEqual({
      end: [expect.objectContaining({ extensions: { code: 'UNAUTHENTICATED', reason: 'TOKEN_EXPIRED' } })],
    });
    await over;
    expect(state.returned).toBe(true);
    expect((await frames.next()).done).toBe(true);
    live.close();
  });

  it('ends with the coded reason the live operations give, once', async () => {
    const { handle } = stream();
    handle.attach(idleResults().results);
    handle.end(SESSION_ENDED);
    handle.end(GOING_AWAY);
    const frames = handle.frames();
    expect((await frames.next()).value).toEqual({
      end: [expect.objectContaining({ extensions: { code: 'UNAUTHENTICATED', reason: 'SESSION_ENDED' } })],
    });
    expect((await frames.next()).done).toBe(true);
  });
});
