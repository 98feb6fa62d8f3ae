/**
 * Appends one event and, in the same atomic step, reads it into this replica's pending list of
 * the consumer group (so that it is never unowned: a dead replica's events are claimable at once
 * after the idle time). Refuses (no trimming of undelivered events) past the entry or byte cap.
 * KEYS: stream, byte counter. ARGV: group, consumer, maxEntries, maxBytes, event_id, task_id,
 * seq, posted_at_ms, body, mac (see store-contents.mac.ts), epoch; KEYS[3] (optional): the
 * replica's epoch key — the append is refused once it holds another epoch (the replica was fenced).
 * ARGV from 12 on (optional): ids of delivered entries, removed first whatever the append's outcome
 * (the removals of this replica's acks, carried so that they cost no round trip of their own).
 * Returns {'ok', id}, {'full', 'entries' | 'bytes'} or {'fenced', epoch}.
 */
export const APPEND_FUNCTION = `
local function append(K, A)
  if K[3] then
    local epoch = redis.call('GET', K[3])
    if epoch and epoch ~= A[11] then return {'fenced', epoch} end
  end
  -- the group may be gone (Redis restarted without persistence): create it, else BUSYGROUP (ignored)
  pcall(redis.call, 'XGROUP', 'CREATE', K[1], A[1], '0', 'MKSTREAM')
  local n = string.len(A[9])
  if redis.call('XLEN', K[1]) >= tonumber(A[3]) then return {'full', 'entries'} end
  local used = tonumber(redis.call('GET', K[2]) or '0')
  if used + n > tonumber(A[4]) then return {'full', 'bytes'} end
  local id = redis.call('XADD', K[1], '*', 'e', A[5], 't', A[6], 's', A[7], 'p', A[8], 'n', n, 'b', A[9], 'm', A[10])
  redis.call('INCRBY', K[2], n)
  for _ = 1, 1000 do
    local read = redis.call('XREADGROUP', 'GROUP', A[1], A[2], 'COUNT', 100, 'STREAMS', K[1], '>')
    if not read then break end
    local messages = read[1][2]
    if #messages == 0 or messages[#messages][1] == id then break end
  end
  return {'ok', id}
end
`;

/**
 * Removes entries: for each id from `A[from]` on, XACK + XDEL, and its bytes from the counter
 * (only when it was still there, so that two replicas acking the same event count it once).
 * Returns how many were removed (the others were already gone).
 */
export const REMOVE_FUNCTION = `
local function remove(stream, bytes, group, A, from)
  local removed = 0
  for i = from, #A do
    local entry = redis.call('XRANGE', stream, A[i], A[i])
    redis.call('XACK', stream, group, A[i])
    if #entry > 0 then
      redis.call('XDEL', stream, A[i])
      removed = removed + 1
      local fields = entry[1][2]
      for f = 1, #fields, 2 do
        if fields[f] == 'n' then redis.call('DECRBY', bytes, tonumber(fields[f + 1])) end
      end
    end
  end
  return removed
end
`;

/** ARGV index of an append's first entry id to remove (see {@link APPEND_FUNCTION}). */
export const APPEND_REMOVALS_FROM = 12;

/**
 * Removes delivered entries (see {@link REMOVE_FUNCTION}).
 * KEYS: stream, byte counter. ARGV: group, then the ids. Returns how many were removed.
 */
export const ACK_SCRIPT = `${REMOVE_FUNCTION}
return remove(KEYS[1], KEYS[2], ARGV[1], ARGV, 2)`;

/** An append alone (see {@link APPEND_FUNCTION}), after the removals it carries. */
export const APPEND_SCRIPT = `${REMOVE_FUNCTION}${APPEND_FUNCTION}
remove(KEYS[1], KEYS[2], ARGV[1], ARGV, ${APPEND_REMOVALS_FROM})
return append(KEYS, ARGV)`;
