// The Lua script of the task store's writes (redis-task.store.ts), registered once per client (redis.scripts.ts).

/**
 * Writes a task, its scope index entry and its owner's running set in one step; never changes a
 * finished task's outcome (a late write of a slow owner after a survivor failed it: back to
 * running, or cancelled over failed — also when the owner rejoined under a new epoch).
 * The task id's reservation lives as long as the task: no expiry while it runs, the task's own once
 * it ended. A write of the owner carries its epoch and is refused (-1) once the owner was fenced.
 * KEYS: task, scope, owned, id reservation, owner's epoch. ARGV: json, expiry ms (0: none), state,
 * created ms, task id, owner, epoch ('' for a survivor's take-over write), changes channel (the
 * task id is published there once written).
 */
export const PUT_SCRIPT = `
if ARGV[7] ~= '' then
  local epoch = redis.call('GET', KEYS[5])
  if epoch and epoch ~= ARGV[7] then return -1 end
end
local cur = redis.call('GET', KEYS[1])
if cur then
  local ok, old = pcall(cjson.decode, cur)
  if ok and old.task and old.task.state ~= 'running' and old.task.state ~= ARGV[3] then return 0 end
end
if ARGV[2] == '0' then
  redis.call('SET', KEYS[1], ARGV[1])
  redis.call('SET', KEYS[4], ARGV[6])
else
  redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[2])
  redis.call('SET', KEYS[4], ARGV[6], 'PX', ARGV[2])
end
redis.call('ZADD', KEYS[2], ARGV[4], ARGV[5])
if ARGV[3] == 'running' then redis.call('SADD', KEYS[3], ARGV[5]) else redis.call('SREM', KEYS[3], ARGV[5]) end
redis.call('PUBLISH', ARGV[8], ARGV[5])
return 1`;
