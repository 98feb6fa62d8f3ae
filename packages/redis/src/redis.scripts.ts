import { type CommandParser, defineScript } from 'redis';
import { type RedisClient } from './redis-connection.js';
import { RELEASE_SCRIPT, TAKE_SCRIPT } from './actuator-lease.scripts.js';
import { ACK_SCRIPT, APPEND_SCRIPT } from './redis-outbox.scripts.js';
import { DROP_SCRIPT, FENCE_SCRIPT, RENEW_SCRIPT } from './task-lease.scripts.js';
import { PUT_SCRIPT } from './task-store.scripts.js';
import { TASK_WRITE_APPEND_SCRIPT } from './task-write.scripts.js';

/**
 * One Lua script of the kit, as node-redis's `defineScript` registers it on a client: called as
 * `client.<name>(keys, args)`, sent as `EVALSHA <sha1>` (node-redis falls back to `EVAL` once when
 * Redis answers `NOSCRIPT`, after which the script is cached there), inside a `multi()` too.
 */
function kitScript(lua: string) {
  return defineScript({
    SCRIPT: lua,
    parseCommand(parser: CommandParser, keys: readonly string[], args: readonly string[]): void {
      parser.pushKeysLength([...keys]);
      parser.push(...args);
    },
    // the reply as Redis gives it: each caller checks its own script's shape
    transformReply: (reply: unknown): unknown => reply,
  });
}

/** The scripts of the task store, its lease, the actuator leases and the outbox, on the robot side's clients. */
export const KIT_SCRIPTS = {
  rmkTaskPut: kitScript(PUT_SCRIPT),
  rmkLeaseRenew: kitScript(RENEW_SCRIPT),
  rmkLeaseFence: kitScript(FENCE_SCRIPT),
  rmkLeaseDrop: kitScript(DROP_SCRIPT),
  rmkOutboxAppend: kitScript(APPEND_SCRIPT),
  rmkOutboxAck: kitScript(ACK_SCRIPT),
  rmkTaskWriteAppend: kitScript(TASK_WRITE_APPEND_SCRIPT),
  rmkActuatorTake: kitScript(TAKE_SCRIPT),
  rmkActuatorRelease: kitScript(RELEASE_SCRIPT),
};

/** A robot-side client: node-redis with the kit's scripts registered (`client.rmkTaskPut(keys, args)`). */
export type KitRedisClient = RedisClient<typeof KIT_SCRIPTS>;
