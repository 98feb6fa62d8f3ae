import { randomFillSync, randomUUID } from 'node:crypto';
import { RobotMcpKitError } from '../errors/kit.error.js';

/** The `<server-short>` part of task ids: the first 4 characters of the server name. */
export function taskIdPrefix(serverName: string): string {
  return Array.from(serverName).slice(0, 4).join('');
}

/** Crypto-random bytes drawn 4 KiB at a time: one `randomBytes(3)` per task cost ~5 µs. */
const pool = Buffer.alloc(4096);
let poolOffset = pool.length;

/** 6 random lowercase hex digits (crypto random). */
export function randomHex6(): string {
  if (poolOffset + 3 > pool.length) {
    randomFillSync(pool);
    poolOffset = 0;
  }
  const hex = pool.toString('hex', poolOffset, poolOffset + 3);
  poolOffset += 3;
  return hex;
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

/** A new event id: a random UUID as 32 lowercase hex digits. */
export function newEventId(): string {
  return randomUUID().replaceAll('-', '');
}
