// The Lua script of a task write carried by an outbox append (one round trip per event of a task
// with RMK_STORE), registered once per client (redis.scripts.ts).
import { APPEND_FUNCTION, APPEND_REMOVALS_FROM, REMOVE_FUNCTION } from './redis-outbox.scripts.js';
import { PUT_ARGS, PUT_FUNCTION, PUT_KEYS } from './task-store.scripts.js';

/**
 * Writes a task's record (the task store's put) and appends one of its events to the outbox (the
 * outbox's append) in one atomic step: the record holding the event's seq is stored with the
 * event, never after it, so a survivor numbers a `REPLICA_LOST` failure after every stored event.
 * Refused as a whole (nothing written) once the owner was fenced.
 * KEYS: the put's 5, then the append's 2 or 3. ARGV: the put's 8, then the append's 11 and its
 * removals (removed first, even when the owner was fenced: they are of events already delivered).
 * Returns the append's reply ({'ok', id}, {'full', cap}) with the put's (1 written, 0 a finished
 * outcome kept) third, or {'fenced', epoch}.
 */
export const TASK_WRITE_APPEND_SCRIPT = `${PUT_FUNCTION}${REMOVE_FUNCTION}${APPEND_FUNCTION}
local function slice(t, from, to)
  local out = {}
  for i = from, to do out[#out + 1] = t[i] end
  return out
end
remove(KEYS[${PUT_KEYS + 1}], KEYS[${PUT_KEYS + 2}], ARGV[${PUT_ARGS + 1}], ARGV, ${PUT_ARGS + APPEND_REMOVALS_FROM})
local written = put(slice(KEYS, 1, ${PUT_KEYS}), slice(ARGV, 1, ${PUT_ARGS}))
if written == -1 then return {'fenced', redis.call('GET', KEYS[5]) or ''} end
local reply = append(slice(KEYS, ${PUT_KEYS + 1}, #KEYS), slice(ARGV, ${PUT_ARGS + 1}, #ARGV))
return {reply[1], reply[2], written}`;
