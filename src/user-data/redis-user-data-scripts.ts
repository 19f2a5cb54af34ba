import { KEPT_DATA_MARK } from '../redis/redis-keys.js';

/**
 * The user-data store's scripts. A user's record is one hash under the user's tag: `ep` (the
 * epoch: new each time the hash is created, so deleting it ends every read in flight), `g:<topic>`
 * (each topic's generation), `n` (the fields' bytes), `cs` (the change log's newest position),
 * `lb` (the ledger's block ids in order), `lk` (see below) and `e:<topic>|<name>` (a field:
 * `<writtenAt>.<ciphertext>`). The index (the least recently written users, each one's bytes, and
 * the total) lives in a slot of its own, updated by a second command.
 *
 * An earlier version may share the Redis during a rolling deploy, and may acknowledge a webhook
 * without keeping this record current (the version before the store kept nothing; the one before
 * the ledger drops what it knew of, but appends no change log). Every event this version appends
 * to a user's event log carries the field `k`, so an event without it was stored by such an
 * instance: before any field is read or written, the scripts look at the events appended since
 * `lk` (the last one checked), and at the first that lacks it drop the whole record, epoch and
 * all. An earlier instance's acknowledgement therefore changes this version's record as surely as
 * its own: no read served after it is older. The event log is under the same user tag (one slot).
 */
const STREAM_CHECK = `
local function id_parts(id)
  local ms, seq = string.match(id, '^(%d+)%-(%d+)$')
  return tonumber(ms or '0'), tonumber(seq or '0')
end
local function id_before(a, b)
  local am, as = id_parts(a)
  local bm, bs = id_parts(b)
  if am ~= bm then return am < bm end
  return as < bs
end
local function log_info(name)
  if redis.call('EXISTS', KEYS[2]) == 0 then return '0-0' end
  local info = redis.call('XINFO', 'STREAM', KEYS[2])
  for i = 1, #info, 2 do
    if info[i] == name then return info[i + 1] end
  end
  return '0-0'
end
local function foreign_acks()
  local lk = redis.call('HGET', KEYS[1], 'lk')
  if not lk then return true end
  if redis.call('EXISTS', KEYS[2]) == 0 then return false end
  local first = redis.call('XRANGE', KEYS[2], '-', '+', 'COUNT', 1)[1]
  if (not first or id_before(lk, first[1])) and id_before(lk, log_info('max-deleted-entry-id')) then return true end
  local last = lk
  repeat
    local entries = redis.call('XRANGE', KEYS[2], '(' .. last, '+', 'COUNT', 64)
    for _, entry in ipairs(entries) do
      if entry[2][3] ~= '${KEPT_DATA_MARK}' then return true end
      last = entry[1]
    end
  until #entries < 64
  if last ~= lk then redis.call('HSET', KEYS[1], 'lk', last) end
  return false
end
local function start_record(epoch, ttl)
  redis.call('DEL', KEYS[1])
  redis.call('HSET', KEYS[1], 'ep', epoch, 'lk', log_info('last-generated-id'))
  redis.call('PEXPIRE', KEYS[1], ttl)
end
`;

/**
 * The fields asked for and the stamp of the topics asked for (`<epoch>|<topic>=<generation>…`);
 * starts a record for a user with none, and starts it again after an earlier version's
 * acknowledgement. KEYS: the user's hash, their event log. ARGV: a new epoch, the hash's time to
 * live (ms), how many of the ledger's first blocks to add, the number of topics, the topics, the
 * fields. Returns {stamp, 1 if the record was started again, then field and value pairs}.
 */
export const READ_SCRIPT = `${STREAM_CHECK}
local restarted = 0
if redis.call('HEXISTS', KEYS[1], 'ep') == 0 then
  start_record(ARGV[1], ARGV[2])
elseif foreign_acks() then
  start_record(ARGV[1], ARGV[2])
  restarted = 1
end
local stamp = redis.call('HGET', KEYS[1], 'ep')
local topics = tonumber(ARGV[4])
for i = 5, 4 + topics do
  stamp = stamp .. '|' .. ARGV[i] .. '=' .. (redis.call('HGET', KEYS[1], 'g:' .. ARGV[i]) or '0')
end
local out = {stamp, restarted}
local function add(field)
  table.insert(out, field)
  table.insert(out, redis.call('HGET', KEYS[1], 'e:' .. field) or '')
end
for i = 5 + topics, #ARGV do add(ARGV[i]) end
local head = tonumber(ARGV[3])
if head > 0 then
  local order = redis.call('HGET', KEYS[1], 'lb') or ''
  for id in string.gmatch(order, '[^,]+') do
    if head == 0 then break end
    add('ta|L' .. id)
    head = head - 1
  end
end
return out
`;

/**
 * A mutation (see Mutation in user-data-store.ts), if the stamp still holds. KEYS: the user's hash,
 * their event log. ARGV: the stamp, the mutation as JSON {put, bump, drop, log, order, mode},
 * the cap (bytes), the time to live (ms), the change log's kept length, a new epoch (for a record
 * started again). Returns {outcome, the user's bytes, 1 if their other fields were dropped, the
 * log position}.
 */
export const APPLY_SCRIPT = `${STREAM_CHECK}
if redis.call('HEXISTS', KEYS[1], 'ep') == 0 then return {'stale', 0, 0, 0} end
if foreign_acks() then
  start_record(ARGV[6], ARGV[4])
  return {'stale', 0, 0, 0}
end
local first = true
for part in string.gmatch(ARGV[1], '[^|]+') do
  if first then
    if part ~= redis.call('HGET', KEYS[1], 'ep') then return {'stale', 0, 0, 0} end
    first = false
  else
    local topic, generation = string.match(part, '^(.*)=(%d+)$')
    if (redis.call('HGET', KEYS[1], 'g:' .. topic) or '0') ~= generation then return {'stale', 0, 0, 0} end
  end
end
local m = cjson.decode(ARGV[2])
local cap = tonumber(ARGV[3])
local drops, bumps = {}, {}
for _, topic in ipairs(m.drop) do drops[topic] = true end
for _, topic in ipairs(m.bump) do bumps[topic] = true end
local names = redis.call('HKEYS', KEYS[1])
local deleting = {}
for _, name in ipairs(names) do
  if string.sub(name, 1, 2) == 'e:' then
    local bar = string.find(name, '|', 3, true)
    local topic = string.sub(name, 3, bar - 1)
    local ledger = string.sub(name, 3, bar + 1) == 'ta|L' or string.sub(name, 3, bar + 1) == 'ta|C'
    if drops[topic] or (bumps[topic] and not ledger) then deleting[name] = true end
  end
end
local head = tonumber(redis.call('HGET', KEYS[1], 'cs') or '0')
local logging = type(m.log) == 'string'
if logging and head + 1 > tonumber(ARGV[5]) then deleting['e:ta|C' .. (head + 1 - tonumber(ARGV[5]))] = true end
local added = 0
for _, put in ipairs(m.put) do
  deleting['e:' .. put[1]] = true
  if type(put[2]) == 'string' then
    if string.len(put[2]) > cap then return {'too-large', 0, 0, 0} end
    added = added + string.len(put[2])
  end
end
if logging then added = added + string.len(m.log) end
local bytes = tonumber(redis.call('HGET', KEYS[1], 'n') or '0') + added
for name in pairs(deleting) do bytes = bytes - redis.call('HSTRLEN', KEYS[1], name) end
local made_room = 0
if bytes > cap then
  if m.mode == 'refuse' then return {'over-cap', bytes, 0, 0} end
  for _, name in ipairs(names) do
    if string.sub(name, 1, 2) == 'e:' then deleting[name] = true end
  end
  bytes = added
  made_room = 1
end
for topic in pairs(drops) do redis.call('HINCRBY', KEYS[1], 'g:' .. topic, 1) end
for topic in pairs(bumps) do
  if not drops[topic] then redis.call('HINCRBY', KEYS[1], 'g:' .. topic, 1) end
end
for name in pairs(deleting) do redis.call('HDEL', KEYS[1], name) end
for _, put in ipairs(m.put) do
  if type(put[2]) == 'string' then redis.call('HSET', KEYS[1], 'e:' .. put[1], put[2]) end
end
local position = 0
if logging then
  position = redis.call('HINCRBY', KEYS[1], 'cs', 1)
  redis.call('HSET', KEYS[1], 'e:ta|C' .. position, m.log)
end
if type(m.order) == 'string' then redis.call('HSET', KEYS[1], 'lb', m.order) end
redis.call('HSET', KEYS[1], 'n', bytes)
redis.call('PEXPIRE', KEYS[1], ARGV[4])
return {'kept', bytes, made_room, position}
`;

/**
 * Bumps each topic's generation and drops its fields, with no compare-and-set (what an earlier
 * version's change does, and this one's when a change cannot be applied in place). A user with no
 * hash has nothing kept and no read in flight that could write back (its epoch is gone). KEYS: the
 * user's hash. ARGV: the topics. Returns the user's bytes after, or -1 when there was no hash.
 */
export const DROP_SCRIPT = `
if redis.call('EXISTS', KEYS[1]) == 0 then return -1 end
local n = tonumber(redis.call('HGET', KEYS[1], 'n') or '0')
local names = redis.call('HKEYS', KEYS[1])
for i = 1, #ARGV do
  redis.call('HINCRBY', KEYS[1], 'g:' .. ARGV[i], 1)
  local prefix = 'e:' .. ARGV[i] .. '|'
  for _, name in ipairs(names) do
    if string.sub(name, 1, #prefix) == prefix then
      n = n - redis.call('HSTRLEN', KEYS[1], name)
      redis.call('HDEL', KEYS[1], name)
    end
  end
end
redis.call('HSET', KEYS[1], 'n', n)
return n
`;

/** Lua: removes one user from the index (KEYS: last-written set, sizes hash, total), its bytes from the total. */
const FORGET_FROM_INDEX = `
local function forget(tag)
  local old = redis.call('HGET', KEYS[2], tag)
  if old then
    redis.call('HDEL', KEYS[2], tag)
    redis.call('DECRBY', KEYS[3], old)
  end
  redis.call('ZREM', KEYS[1], tag)
end
`;

/**
 * Records a user's bytes and write time in the index, forgets up to 10 users whose hash has
 * expired by now (last written before ARGV[4]), and returns the total. KEYS: the index's
 * last-written set, sizes hash, total. ARGV: tag, bytes, now, expired-before.
 */
export const INDEX_SCRIPT = `${FORGET_FROM_INDEX}for _, tag in ipairs(redis.call('ZRANGEBYSCORE', KEYS[1], '-inf', '(' .. ARGV[4], 'LIMIT', 0, 10)) do
  forget(tag)
end
local old = tonumber(redis.call('HGET', KEYS[2], ARGV[1]) or '0')
redis.call('HSET', KEYS[2], ARGV[1], ARGV[2])
redis.call('INCRBY', KEYS[3], tonumber(ARGV[2]) - old)
redis.call('ZADD', KEYS[1], ARGV[3], ARGV[1])
return tonumber(redis.call('GET', KEYS[3]) or '0')
`;

/** Forgets users in the index. KEYS: as INDEX_SCRIPT. ARGV: their tags. */
export const UNINDEX_SCRIPT = `${FORGET_FROM_INDEX}for _, tag in ipairs(ARGV) do
  forget(tag)
end
return tonumber(redis.call('GET', KEYS[3]) or '0')
`;
