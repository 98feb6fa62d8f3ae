// The Lua scripts of the actuator leases (actuator-lease.ts), registered once per client (redis.scripts.ts).

/**
 * Takes slot KEYS[1] for ARGV[1] (the sealed holder record) when it still holds ARGV[2] (the value
 * read, '' for none) and that value holds nothing: none, void (ARGV[3] = '1': unauthentic, or a
 * stale holder of this replica), or of a holder
 * replica whose lease expired or whose epoch moved on (it is fenced here, as the sweeper would). The
 * taker's own epoch must still be current. KEYS: slot, own epoch, holder's lease, holder's epoch.
 * A lost holder is judged (and fenced) only when ARGV[7] = '1': the taker's own lease renewals
 * succeeded for a whole lease (after a Redis outage every lease expired).
 * ARGV: record, expected, void, own epoch, holder's epoch, epoch retention ms, may judge.
 * Returns 1 taken, 0 held, 2 changed since it was read, -1 the taker was fenced.
 */
export const TAKE_SCRIPT = `
local mine = redis.call('GET', KEYS[2])
if mine and mine ~= ARGV[4] then return -1 end
local cur = redis.call('GET', KEYS[1])
if (cur or '') ~= ARGV[2] then return 2 end
if cur and ARGV[3] ~= '1' then
  local alive = redis.call('EXISTS', KEYS[3]) == 1
  local epoch = redis.call('GET', KEYS[4])
  if alive and epoch == ARGV[5] then return 0 end
  if not alive and epoch == ARGV[5] then
    if ARGV[7] ~= '1' then return 0 end
    redis.call('INCR', KEYS[4])
    redis.call('PEXPIRE', KEYS[4], ARGV[6])
  end
end
redis.call('SET', KEYS[1], ARGV[1])
return 1`;

/** Deletes slot KEYS[1] when it holds ARGV[1] (this holder's record). */
export const RELEASE_SCRIPT = `
if redis.call('GET', KEYS[1]) == ARGV[1] then redis.call('DEL', KEYS[1]) end
return 1`;
