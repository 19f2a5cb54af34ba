import { Redis } from 'ioredis';
import type { LoggedEvent } from '../../src/event-log/event-log.js';

/** Helpers for event-log tests on a Cluster of the test's own. */

export const paymentEvent = (id: string) => ({
  type: 'PAYMENT',
  code: 'UPDATE',
  payload: { item_id: id },
  receivedAt: new Date().toISOString(),
});

/** One command to the node on `port`, on a connection of its own. */
export async function ask(port: number, ...command: string[]): Promise<unknown> {
  const probe = new Redis(port, '127.0.0.1', { lazyConnect: true, maxRetriesPerRequest: 0 });
  try {
    await probe.connect();
    return await probe.call(command[0]!, ...command.slice(1));
  } finally {
    probe.disconnect();
  }
}

/** The next event, or 'none' if none arrives within `ms`. */
export async function nextWithin(live: AsyncIterator<LoggedEvent>, ms: number): Promise<LoggedEvent | 'none'> {
  let timer: NodeJS.Timeout | undefined;
  const none = new Promise<'none'>((resolve) => (timer = setTimeout(() => resolve('none'), ms)));
  const next = live.next().then((result) => (result.done ? ('none' as const) : result.value));
  try {
    return await Promise.race([next, none]);
  } finally {
    clearTimeout(timer);
  }
}
