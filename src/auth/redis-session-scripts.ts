/**
 * Writes a session unless it was ended (KEYS[2], its tombstone): a write sent before a sign-out or
 * a revocation but applied after it (a touch racing the deletion, or a write that timed out and
 * Redis ran late) must not bring the session back. Session ids are never reused, so a tombstone
 * blocks nothing else. KEYS: session, tombstone, user index; one slot (the user's tag).
 */
export const WRITE_SCRIPT = `
if redis.call('EXISTS', KEYS[2]) == 1 then return 0 end
redis.call('SET', KEYS[1], ARGV[1], 'PXAT', ARGV[2])
redis.call('SADD', KEYS[3], ARGV[3])
redis.call('PEXPIREAT', KEYS[3], ARGV[4], 'GT')
redis.call('PEXPIREAT', KEYS[3], ARGV[4], 'NX')
return 1
`;

/**
 * Deletes sessions and leaves a tombstone for each that existed, kept as long as the session's key
 * would have lived. KEYS: pairs of session and tombstone, all of one user. Returns the values.
 */
export const END_SCRIPT = `
local values = {}
for i = 1, #KEYS, 2 do
  local ttl = redis.call('PTTL', KEYS[i])
  local value = redis.call('GETDEL', KEYS[i])
  if value then
    if ttl > 0 then redis.call('SET', KEYS[i + 1], '1', 'PX', ttl) end
    values[#values + 1] = value
  end
end
return values
`;
