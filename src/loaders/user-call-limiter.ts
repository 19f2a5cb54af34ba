import { bulkhead, BulkheadRejectedError, type BulkheadPolicy } from 'cockatiel';

/** One user has more upstream calls waiting than the limiter queues. */
export class UserCallsExhaustedError extends Error {
  constructor(readonly limit: number) {
    super(`more than ${limit} upstream calls in flight or waiting for one user`);
    this.name = 'UserCallsExhaustedError';
  }
}

/**
 * Caps the platform calls one user may have in flight (a cockatiel bulkhead per user), so one
 * user's hung or numerous reads cannot fill the shared connection pool and stall everyone else.
 * Calls past the cap wait for the user's own slots; past the queue they are refused. Bulkheads
 * of idle users are dropped, so memory follows active users only.
 */
export function createUserCallLimiter(options: { maxInFlight: number; maxQueued?: number }) {
  const maxQueued = options.maxQueued ?? options.maxInFlight * 8;
  const bulkheads = new Map<string, BulkheadPolicy>();

  return {
    async run<T>(userId: string, call: () => Promise<T>): Promise<T> {
      let policy = bulkheads.get(userId);
      if (!policy) bulkheads.set(userId, (policy = bulkhead(options.maxInFlight, maxQueued)));
      try {
        return await policy.execute(call);
      } catch (error) {
        if (error instanceof BulkheadRejectedError) throw new UserCallsExhaustedError(options.maxInFlight + maxQueued);
        throw error;
      } finally {
        if (policy.executionSlots === options.maxInFlight && policy.queueSlots === maxQueued) bulkheads.delete(userId);
      }
    },
  };
}

export type UserCallLimiter = ReturnType<typeof createUserCallLimiter>;
