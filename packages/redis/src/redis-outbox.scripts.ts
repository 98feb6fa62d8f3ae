/**
 * Appends one event and, in the same atomic step, reads it into this replica's pending list of
 * the consumer group (so that it is never unowned: a dead replica's events are claimable at once
 * after the idle time). Refuses (no trimming of undelivered events) past the entry or byte cap.
 * KEYS: stream, byte counter. ARGV: group, consumer, maxEntries, maxBytes, event_id, task_id,
 * seq, posted_at_ms, body, mac (see store-contents.mac.ts), epoch; KEYS[3] (optional): the
 * replica's epoch key — the append is refused once it holds another epoch (the replica was fenced).
 * Returns {'ok', id}, {'full', 'entries' | 'bytes'} or {'fenced', epoch}.
 */
export const APPEND_SCRIPT = `
if KEYS[3] then
  local epoch = redis.call('GET', KEYS[3])
  if epoch and epoch ~= ARGV[11] then return {'fenced', epoch} end
end
-- the group may be gone (Redis restarted without persistence): create it, else BUSYGROUP (ignored)
pcall(redis.call, 'XGROUP', 'CREATE', KEYS[1], ARGV[1], '0', 'MKSTREAM')
local n = string.len(ARGV[9])
if redis.call('XLEN', KEYS[1]) >= tonumber(ARGV[3]) then return {'full', 'entries'} end
local used = tonumber(redis.call('GET', KEYS[2]) or '0')
if used + n > tonumber(ARGV[4]) then return {'full', 'bytes'} end
local id = redis.call('XADD', KEYS[1], '*', 'e', ARGV[5], 't', ARGV[6], 's', ARGV[7], 'p', ARGV[8], 'n', n, 'b', ARGV[9], 'm', ARGV[10])
redis.call('INCRBY', KEYS[2], n)
for _ = 1, 1000 do
  local read = redis.call('XREADGROUP', 'GROUP', ARGV[1], ARGV[2], 'COUNT', 100, 'STREAMS', KEYS[1], '>')
  if not read then break end
  local messages = read[1][2]
  if #messages == 0 or messages[#messages][1] == id then break end
end
return {'ok', id}
`;

/**
 * Removes one entry: XACK + XDEL, and its bytes from the counter (only when it was still there,
 * so that two replicas acking the same event count it once).
 * KEYS: stream, byte counter. ARGV: group, id. Returns 1 when removed, 0 when already gone.
 */
export const ACK_SCRIPT = `
local entry = redis.call('XRANGE', KEYS[1], ARGV[2], ARGV[2])
redis.call('XACK', KEYS[1], ARGV[1], ARGV[2])
if #entry == 0 then return 0 end
redis.call('XDEL', KEYS[1], ARGV[2])
local fields = entry[1][2]
for i = 1, #fields, 2 do
  if fields[i] == 'n' then redis.call('DECRBY', KEYS[2], tonumber(fields[i + 1])) end
end
return 1
`;
