import { randomToken } from '@open-finance-gateway/common/ids';
import type { Logger } from '@open-finance-gateway/common/logger';
import { storeCall, type RedisClient } from '../redis/redis-client.js';
import type { RedisListener } from '../redis/redis-listener.js';
import type { SessionEndingsBus } from './session-endings.js';

/**
 * Session endings over Redis pub/sub. A missed message (an instance disconnected at that moment,
 * or not yet subscribed again after a reconnection) is not lost for long: each instance re-reads
 * its sockets' sessions at their deadlines and at least every minute, and a gone session closes
 * its sockets then.
 */
export async function createRedisSessionEndings(options: {
  redis: RedisClient;
  listener: RedisListener;
  keyPrefix: string;
  logger: Logger;
}): Promise<SessionEndingsBus> {
  const channel = `${options.keyPrefix}session-ended`;
  const instance = randomToken(12);
  const listeners = new Set<(userId: string, keys: string[]) => void>();
  options.listener.on('message', (from: string, message: string) => {
    if (from !== channel) return;
    try {
      const { origin, userId, keys } = JSON.parse(message) as { origin: string; userId: string; keys: string[] };
      if (origin === instance) return;
      for (const listener of listeners) listener(userId, keys);
    } catch (error) {
      options.logger.warn({ err: error }, 'unreadable session-ended message ignored');
    }
  });
  // The connection subscribes to nothing again by itself after a reconnection or a move.
  options.listener.on('ready', () => {
    options.listener
      .subscribe(channel)
      .catch((error: unknown) =>
        options.logger.warn(
          { err: { message: (error as Error).message } },
          'could not subscribe to session endings again; sockets are rechecked within a minute',
        ),
      );
  });
  await options.listener.subscribe(channel);
  return {
    async publish(userId, keys) {
      await storeCall(() => options.redis.publish(channel, JSON.stringify({ origin: instance, userId, keys })));
    },
    onRemoteEnded(listener) {
      listeners.add(listener);
    },
  };
}
