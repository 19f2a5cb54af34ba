import { randomToken } from '@open-finance-gateway/common/ids';
import type { Logger } from '@open-finance-gateway/common/logger';
import { storeCall, type RedisClient } from '../redis/redis-client.js';
import { sessionEndedChannel, userKeys } from '../redis/redis-keys.js';
import type { RedisListener } from '../redis/redis-listener.js';
import { ACCESS_ENDING_TTL_MS, type SessionEndingsBus } from './session-endings.js';

/** Keeps the later of the stored and the given instant. KEYS: the user's hash; ARGV: field, instant, ttl. */
const END_BEFORE_SCRIPT = `
local current = tonumber(redis.call('HGET', KEYS[1], ARGV[1]) or '0')
if tonumber(ARGV[2]) > current then redis.call('HSET', KEYS[1], ARGV[1], ARGV[2]) end
redis.call('PEXPIRE', KEYS[1], ARGV[3])
return 1
`;

/**
 * Session endings over Redis pub/sub. A missed message (an instance disconnected at that moment,
 * or not yet subscribed again after a reconnection) is not lost for long: each instance re-reads
 * its sockets' sessions at their deadlines and at least every minute, and a gone session closes
 * its sockets then. The instants before which access tokens no longer count are one hash per user
 * (`<user keys>:access-ended`, a field per device and `*` for the whole user), read on each
 * bearer request, so they hold at once on every instance.
 */
export async function createRedisSessionEndings(options: {
  redis: RedisClient;
  listener: RedisListener;
  keyPrefix: string;
  logger: Logger;
}): Promise<SessionEndingsBus> {
  const channel = sessionEndedChannel(options.keyPrefix);
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
  const endedKey = (userId: string) => `${userKeys(options.keyPrefix, userId)}:access-ended`;
  return {
    async endAccessBefore(userId, at, device = '*') {
      await storeCall(() =>
        options.redis.eval(END_BEFORE_SCRIPT, 1, endedKey(userId), device, at, ACCESS_ENDING_TTL_MS),
      );
    },
    async accessNotBefore(userId, device) {
      const values = await storeCall(() => options.redis.hmget(endedKey(userId), '*', device));
      const instants = values.filter((value): value is string => value !== null).map(Number);
      return instants.length === 0 ? undefined : Math.max(...instants);
    },
    async publish(userId, keys) {
      await storeCall(() => options.redis.publish(channel, JSON.stringify({ origin: instance, userId, keys })));
    },
    onRemoteEnded(listener) {
      listeners.add(listener);
    },
  };
}
