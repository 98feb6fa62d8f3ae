import { randomBytes, randomFillSync } from 'node:crypto';
import { RobotMcpKitError } from '../errors/kit.error.js';

/**
 * The `<server-short>` part of task ids (spec §3.1): the first 4 characters of the server name,
 * as the spec's `name[:4]` (`navigation` → `navi`), skipping punctuation, spaces and signs so the
 * id stays readable (`arm-m8` → `armm-b4bba2`, not `arm--b4bba2`). A shorter name gives a shorter
 * prefix (`ur5` → `ur5-…`); a name made only of skipped characters gives `task`.
 */
export function taskIdPrefix(serverName: string): string {
  const prefix = Array.from(serverName.replace(/[\p{P}\p{Z}\p{C}\p{Sm}\p{Sc}\p{Sk}]+/gu, ''))
    .slice(0, 4)
    .join('');
  return prefix === '' ? 'task' : prefix;
}

const MASK = 0xffffff;
const seed = randomBytes(12);
/** Per-process crypto-random keys: a start, an xor key and two odd multipliers (24-bit). */
const [start, xorKey, mul1, mul2] = [0, 3, 6, 9].map(
  (at, i) => (seed.readUIntBE(at, 3) | (i >= 2 ? 1 : 0)) & MASK,
);
let counter = start!;

/**
 * 6 lowercase hex digits that look random but do not repeat within a process for 2^24 tasks: a
 * counter from a random start, put through a keyed bijection of the 24-bit space (xor, odd
 * multiplies and xorshifts are each invertible). Random draws would reuse the id of an evicted
 * task about once every 6,000 tasks (birthday bound), and the app would mix the two tasks up.
 */
export function randomHex6(): string {
  counter = (counter + 1) & MASK;
  let x = (counter ^ xorKey!) & MASK;
  x = Math.imul(x, mul1!) & MASK;
  x ^= x >>> 12;
  x = Math.imul(x, mul2!) & MASK;
  x ^= x >>> 11;
  return x.toString(16).padStart(6, '0');
}

const MAX_ATTEMPTS = 1000;

/**
 * A new task id `<prefix>-<6 hex>` (spec §3.1, e.g. `nav-7f3a2b`), drawn again while `isTaken`
 * says the id is already known.
 */
export function newTaskId(
  prefix: string,
  isTaken: (id: string) => boolean,
  random: () => string = randomHex6,
): string {
  for (let attempt = 0; attempt < MAX_ATTEMPTS; attempt += 1) {
    const id = `${prefix}-${random()}`;
    if (!isTaken(id)) return id;
  }
  throw new RobotMcpKitError(
    'TASK_ID_EXHAUSTED',
    `could not find a free task id for prefix "${prefix}" in ${MAX_ATTEMPTS} attempts; ` +
      'too many tasks are known: lower maxFinishedRetained or finish running tasks',
  );
}

const UUID_BYTES = 16;
/** Random bytes for 256 event ids, refilled when used up. */
const uuidPool = Buffer.allocUnsafe(UUID_BYTES * 256);
let uuidOffset = uuidPool.length;

/**
 * A new event id: a random (version 4) UUID as 32 lowercase hex digits. Drawn from a pooled random
 * buffer and hex-encoded in one step (profiled: `randomUUID().replaceAll('-', '')` allocated
 * ~750 bytes per event, a tenth of an event's garbage).
 */
export function newEventId(): string {
  if (uuidOffset === uuidPool.length) {
    randomFillSync(uuidPool);
    uuidOffset = 0;
  }
  const at = uuidOffset;
  uuidOffset += UUID_BYTES;
  uuidPool[at + 6] = (uuidPool[at + 6]! & 0x0f) | 0x40; // version 4
  uuidPool[at + 8] = (uuidPool[at + 8]! & 0x3f) | 0x80; // RFC 4122 variant
  return uuidPool.toString('hex', at, at + UUID_BYTES);
}
