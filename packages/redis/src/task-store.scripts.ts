// The Lua scripts of the task store (redis-task.store.ts): its writes, registered once per client
// (redis.scripts.ts), and the release of unused reserved ids (sent as EVAL, once at close).

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
export const PUT_FUNCTION = `
local function put(K, A)
  if A[7] ~= '' then
    local epoch = redis.call('GET', K[5])
    if epoch and epoch ~= A[7] then return -1 end
  end
  local cur = redis.call('GET', K[1])
  if cur then
    local ok, old = pcall(cjson.decode, cur)
    if ok and old.task and old.task.state ~= 'running' and old.task.state ~= A[3] then return 0 end
  end
  if A[2] == '0' then
    redis.call('SET', K[1], A[1])
    redis.call('SET', K[4], A[6])
  else
    redis.call('SET', K[1], A[1], 'PX', A[2])
    redis.call('SET', K[4], A[6], 'PX', A[2])
  end
  redis.call('ZADD', K[2], A[4], A[5])
  if A[3] == 'running' then redis.call('SADD', K[3], A[5]) else redis.call('SREM', K[3], A[5]) end
  redis.call('PUBLISH', A[8], A[5])
  return 1
end
`;

/** The keys and arguments of one {@link PUT_SCRIPT} call (the put of a combined write too). */
export const PUT_KEYS = 5;
export const PUT_ARGS = 8;

export const PUT_SCRIPT = `${PUT_FUNCTION}
return put(KEYS, ARGV)`;

/**
 * Releases task id reservations this replica made ahead and did not use (on close): deletes each
 * `id:<id>` that still names this replica and whose `task:<id>` does not exist (a task record
 * keeps its reservation; another replica's is never touched). KEYS: pairs of id reservation, task.
 * ARGV: the replica id. Returns how many were released. Sent as `EVAL` (run once, at close).
 */
export const RELEASE_IDS_SCRIPT = `
local released = 0
for i = 1, #KEYS, 2 do
  if redis.call('GET', KEYS[i]) == ARGV[1] and redis.call('EXISTS', KEYS[i + 1]) == 0 then
    redis.call('DEL', KEYS[i])
    released = released + 1
  end
end
return released`;
