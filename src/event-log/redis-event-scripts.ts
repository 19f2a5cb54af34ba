import type { RedisClient } from '../redis/redis-client.js';
import { DONE_MARK } from '../redis/redis-keys.js';

/**
 * Appends an event and announces it, atomically: XADD to the user's stream (trimmed by MINID) and
 * PUBLISH of "<id>\n<previous id>\n<event>" on the user's channel. The previous id lets a reader
 * see that it missed an announcement (pub/sub drops messages while a connection is down) and
 * read the gap from the stream. One key per script, so it runs on a Cluster too.
 */
const APPEND = `
local last = redis.call('XREVRANGE', KEYS[1], '+', '-', 'COUNT', 1)
local previous = '0-0'
if last[1] then previous = last[1][1] end
local id = redis.call('XADD', KEYS[1], 'MINID', '~', ARGV[1], '*', 'e', ARGV[2])
redis.call('PERSIST', KEYS[1])
redis.call('PUBLISH', ARGV[3], id .. '\\n' .. previous .. '\\n' .. ARGV[2])
`;
const APPEND_SCRIPT = `${APPEND}
return id
`;

/**
 * The append for a webhook delivery: KEYS[2] is its mark (under the same user tag, so one slot).
 * A delivery already done appends nothing (a late-running write after a retry stored it); else the
 * append and the done mark, for the deduplication window, are one atomic step.
 */
const APPEND_DELIVERY_SCRIPT = `
if redis.call('GET', KEYS[2]) == '${DONE_MARK}' then return false end
${APPEND}
redis.call('SET', KEYS[2], '${DONE_MARK}', 'PX', ARGV[4])
return id
`;

/**
 * Forgets a user's events but keeps the emptied stream (with the last id it generated) for the
 * retention period: a stream recreated by DEL would restart its ids and could hand out a cursor
 * again, within the same millisecond, so a client resuming from an old cursor would skip the new
 * events. The append script clears the expiry when events arrive again.
 */
const FORGET_SCRIPT = `
redis.call('XTRIM', KEYS[1], 'MAXLEN', 0)
if redis.call('EXISTS', KEYS[1]) == 1 then redis.call('PEXPIRE', KEYS[1], ARGV[1]) end
return 1
`;

type AppendCommand = (key: string, minId: string, event: string, channel: string) => Promise<string>;
type AppendDeliveryCommand = (
  key: string,
  mark: string,
  minId: string,
  event: string,
  channel: string,
  windowMs: number,
) => Promise<string | null>;
type ForgetCommand = (key: string, ttlMs: number) => Promise<number>;

/** The event log's scripts, bound to the client they were defined on. */
export interface EventCommands {
  append: AppendCommand;
  appendDelivery: AppendDeliveryCommand;
  forget: ForgetCommand;
}

export function defineEventCommands(redis: RedisClient): EventCommands {
  redis.defineCommand('ofgAppendEvent', { numberOfKeys: 1, lua: APPEND_SCRIPT });
  redis.defineCommand('ofgAppendDelivery', { numberOfKeys: 2, lua: APPEND_DELIVERY_SCRIPT });
  redis.defineCommand('ofgForgetEvents', { numberOfKeys: 1, lua: FORGET_SCRIPT });
  const commands = redis as unknown as {
    ofgAppendEvent: AppendCommand;
    ofgAppendDelivery: AppendDeliveryCommand;
    ofgForgetEvents: ForgetCommand;
  };
  return {
    append: commands.ofgAppendEvent.bind(redis),
    appendDelivery: commands.ofgAppendDelivery.bind(redis),
    forget: commands.ofgForgetEvents.bind(redis),
  };
}
