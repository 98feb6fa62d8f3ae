// The Lua scripts of the task lease (task-lease.ts), registered once per client (redis.scripts.ts).

/**
 * Renews a lease held by this process (its token), or takes an expired one; never another live
 * process's. The replica's epoch (its fencing token) is taken on the first call (INCR), and kept
 * while the lease is held or only lapsed (a Redis outage); once a survivor raised it (it judged
 * this replica lost) the renewal is refused for good. KEYS: lease, epoch. ARGV: token, lease ms,
 * epoch held ('' before the first), epoch retention ms. Returns {1, epoch} when held, {0, ''} when
 * another token holds it, {-1, epoch} when this replica was fenced.
 */
export const RENEW_SCRIPT = `
local holder = redis.call('GET', KEYS[1])
if holder and holder ~= ARGV[1] then return {0, ''} end
local epoch = redis.call('GET', KEYS[2])
if ARGV[3] == '' then
  epoch = tostring(redis.call('INCR', KEYS[2]))
elseif epoch and epoch ~= ARGV[3] then
  return {-1, epoch}
elseif not epoch then
  epoch = ARGV[3]
  redis.call('SET', KEYS[2], epoch)
end
redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[2])
redis.call('PEXPIRE', KEYS[2], ARGV[4])
return {1, epoch}`;

/**
 * Fences a replica whose lease expired: raises its epoch, so that every later write it tries is
 * refused. KEYS: lease, epoch. ARGV: epoch retention ms. Returns 1 when fenced, 0 when it is alive.
 */
export const FENCE_SCRIPT = `
if redis.call('EXISTS', KEYS[1]) == 1 then return 0 end
redis.call('INCR', KEYS[2])
redis.call('PEXPIRE', KEYS[2], ARGV[1])
return 1`;

/** Drops the lease only when this process holds it. KEYS: lease. ARGV: token. */
export const DROP_SCRIPT = `
if redis.call('GET', KEYS[1]) == ARGV[1] then redis.call('DEL', KEYS[1]) end
return 1`;
