import type { RedisClient } from '../redis/redis-client.js';
import { DONE_MARK, KEPT_DATA_MARK } from '../redis/redis-keys.js';
import { GONE_DIGEST, SEEN_MAX_OBJECTS } from './event-log.js';

/**
 * Appends an event and announces it, atomically: XADD to the user's log (a Redis Stream, trimmed by MINID) and
 * PUBLISH of "<id>\n<previous id>\n<event>" on the user's channel. The previous id lets a reader
 * see that it missed an announcement (pub/sub drops messages while a connection is down) and
 * read the gap from the log. One key per script, so it runs on a Cluster too. With
 * `markKeptData`, the entry carries the mark that says the user-data store was kept current before
 * the event was stored (see redis-user-data-scripts.ts): an instance with the store off marks nothing.
 */
const append = (markKeptData: boolean) => `
local last = redis.call('XREVRANGE', KEYS[1], '+', '-', 'COUNT', 1)
local previous = '0-0'
if last[1] then previous = last[1][1] end
local id = redis.call('XADD', KEYS[1], 'MINID', '~', ARGV[1], '*', 'e', ARGV[2]${markKeptData ? `, '${KEPT_DATA_MARK}', '1'` : ''})
redis.call('PERSIST', KEYS[1])
redis.call('PUBLISH', ARGV[3], id .. '\\n' .. previous .. '\\n' .. ARGV[2])
`;
/**
 * Keeps what subscribers were given of each object (ARGV from 6: key, digest pairs) for the
 * deduplication window: a removed object's mark is deleted, and past SEEN_MAX_OBJECTS the hash is
 * started again (see SeenMark).
 */
const NOTE_CONTENT = `
local live = 0
for i = 6, #ARGV, 2 do
  if ARGV[i + 1] == '${GONE_DIGEST}' then redis.call('HDEL', KEYS[3], ARGV[i]) else live = live + 1 end
end
if live > 0 then
  if redis.call('HLEN', KEYS[3]) + live > ${SEEN_MAX_OBJECTS} then redis.call('DEL', KEYS[3]) end
  for i = 6, #ARGV, 2 do
    if ARGV[i + 1] ~= '${GONE_DIGEST}' then redis.call('HSET', KEYS[3], ARGV[i], ARGV[i + 1]) end
  end
  redis.call('PEXPIRE', KEYS[3], ARGV[4])
end
`;

const appendScript = (mark: boolean) => `${append(mark)}
return id
`;

/**
 * The append for a webhook delivery: KEYS[2] is its mark, KEYS[3] what the user's subscribers were
 * last given of each object (all under the same user tag, so one slot). ARGV: min id, event,
 * channel, window, how it is judged (0: by its body, 1: by content, 2: not at all: it changed the
 * ledger, which syncs must hear of), then the marks. Judged by its body, a delivery
 * already done appends nothing (a late-running write after a retry stored it); judged by content,
 * one whose every mark is what subscribers were last given appends nothing. Else the append, the
 * marks and the done mark, for the deduplication window, are one atomic step.
 */
const appendDeliveryScript = (mark: boolean) => `
if ARGV[5] == '0' then
  if redis.call('GET', KEYS[2]) == '${DONE_MARK}' then return false end
elseif ARGV[5] == '1' and #ARGV > 5 then
  local same = true
  for i = 6, #ARGV, 2 do
    if redis.call('HGET', KEYS[3], ARGV[i]) ~= ARGV[i + 1] then same = false end
  end
  if same then
    redis.call('SET', KEYS[2], '${DONE_MARK}', 'PX', ARGV[4])
    return false
  end
end
${append(mark)}
${NOTE_CONTENT}
redis.call('SET', KEYS[2], '${DONE_MARK}', 'PX', ARGV[4])
return id
`;

/**
 * An event judged by its content alone (a reconciliation's finding): KEYS as the delivery's but
 * the mark; ARGV: min id, event, channel, window, 1 (or 2: not judged), then the marks. Nothing
 * when every mark is what subscribers were last given.
 */
const appendChangeScript = (mark: boolean) => `
local same = ARGV[5] == '1' and #ARGV > 5
for i = 6, #ARGV, 2 do
  if redis.call('HGET', KEYS[2], ARGV[i]) ~= ARGV[i + 1] then same = false end
end
if same then return false end
${append(mark)}
${NOTE_CONTENT.replaceAll('KEYS[3]', 'KEYS[2]')}
return id
`;

/**
 * Forgets a user's events but keeps the emptied log (with the last id it generated) for the
 * retention period: a Redis Stream recreated by DEL would restart its ids and could hand out a cursor
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
  seen: string,
  minId: string,
  event: string,
  channel: string,
  windowMs: number,
  judged: '0' | '1' | '2',
  ...marks: string[]
) => Promise<string | null>;
type AppendChangeCommand = (
  key: string,
  seen: string,
  minId: string,
  event: string,
  channel: string,
  windowMs: number,
  judged: '1' | '2',
  ...marks: string[]
) => Promise<string | null>;
type ForgetCommand = (key: string, ttlMs: number) => Promise<number>;

/** The event log's scripts, bound to the client they were defined on. */
export interface EventCommands {
  append: AppendCommand;
  appendDelivery: AppendDeliveryCommand;
  appendChange: AppendChangeCommand;
  forget: ForgetCommand;
}

export function defineEventCommands(redis: RedisClient, markKeptData: boolean): EventCommands {
  redis.defineCommand('ofgAppendEvent', { numberOfKeys: 1, lua: appendScript(markKeptData) });
  redis.defineCommand('ofgAppendDelivery', { numberOfKeys: 3, lua: appendDeliveryScript(markKeptData) });
  redis.defineCommand('ofgAppendChange', { numberOfKeys: 2, lua: appendChangeScript(markKeptData) });
  redis.defineCommand('ofgForgetEvents', { numberOfKeys: 1, lua: FORGET_SCRIPT });
  const commands = redis as unknown as {
    ofgAppendEvent: AppendCommand;
    ofgAppendDelivery: AppendDeliveryCommand;
    ofgAppendChange: AppendChangeCommand;
    ofgForgetEvents: ForgetCommand;
  };
  return {
    append: commands.ofgAppendEvent.bind(redis),
    appendDelivery: commands.ofgAppendDelivery.bind(redis),
    appendChange: commands.ofgAppendChange.bind(redis),
    forget: commands.ofgForgetEvents.bind(redis),
  };
}
