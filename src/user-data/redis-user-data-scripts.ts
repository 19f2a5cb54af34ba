/**
 * The user-data store's scripts. A user's entries are one hash under the user's tag: `ep` (the
 * epoch: new each time the hash is created, so deleting it ends every read in flight), `g:<topic>`
 * (each topic's generation), `n` (the entries' bytes) and `e:<topic>|<name>` (an entry:
 * `<writtenAt>.<ciphertext>`). The index (the least recently written users, each one's bytes, and
 * the total) lives in a slot of its own, updated by a second command.
 */

/**
 * The entry and the stamp a write-back must present; creates the epoch for a user with none.
 * KEYS: the user's hash. ARGV: topic, field, a new epoch, the hash's time to live (ms).
 */
export const READ_SCRIPT = `
local ep = redis.call('HGET', KEYS[1], 'ep')
if not ep then
  ep = ARGV[3]
  redis.call('HSET', KEYS[1], 'ep', ep)
  redis.call('PEXPIRE', KEYS[1], ARGV[4])
end
local g = redis.call('HGET', KEYS[1], 'g:' .. ARGV[1]) or '0'
return {ep .. ':' .. g, redis.call('HGET', KEYS[1], 'e:' .. ARGV[2])}
`;

/**
 * Keeps an entry if the stamp is still current (compare-and-set); over the user's cap, the user's
 * other entries go first. KEYS: the user's hash. ARGV: stamp, topic, field, value, cap (bytes),
 * time to live (ms). Returns {outcome, the user's bytes, 1 if their other entries were dropped}.
 */
export const WRITE_SCRIPT = `
local ep = redis.call('HGET', KEYS[1], 'ep')
if not ep then return {'stale', 0, 0} end
local g = redis.call('HGET', KEYS[1], 'g:' .. ARGV[2]) or '0'
if ep .. ':' .. g ~= ARGV[1] then return {'stale', 0, 0} end
local size = string.len(ARGV[4])
local cap = tonumber(ARGV[5])
if size > cap then return {'too-large', 0, 0} end
local field = 'e:' .. ARGV[3]
local n = tonumber(redis.call('HGET', KEYS[1], 'n') or '0') - redis.call('HSTRLEN', KEYS[1], field)
local dropped = 0
if n + size > cap then
  for _, name in ipairs(redis.call('HKEYS', KEYS[1])) do
    if string.sub(name, 1, 2) == 'e:' then redis.call('HDEL', KEYS[1], name) end
  end
  n = 0
  dropped = 1
end
redis.call('HSET', KEYS[1], field, ARGV[4], 'n', n + size)
redis.call('PEXPIRE', KEYS[1], ARGV[6])
return {'kept', n + size, dropped}
`;

/**
 * Bumps each topic's generation and drops its entries. A user with no hash has nothing kept and
 * no read in flight that could write back (its epoch is gone). KEYS: the user's hash. ARGV: the
 * topics. Returns the user's bytes after, or -1 when there was no hash.
 */
export const CHANGE_SCRIPT = `
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
