import { RedisReceiverStore } from './redis-receiver.store.js';
import { type SeqBegin, type SeqStateStore, type SeqTaskRef } from '@robot-mcp-kit/receiver';
import { type RedisClient } from './redis-connection.js';
import {
  type RedisSeqStateOptions,
  type ResolvedRedisSeqStateOptions,
  resolveRedisSeqStateOptions,
} from './redis-seq-state.options.js';

/**
 * Begin: KEYS[1] the task's hash (h: highest delivered, g: gap reported through, f: finished);
 * ARGV seq, idle TTL ms, then the coalesced ranges as from, to, from, to… (sorted).
 * Returns {highest, expected of the gap to report or 0}; records the gap as reported.
 */
const BEGIN_SCRIPT = `
local h = tonumber(redis.call('HGET', KEYS[1], 'h') or '0')
local seq = tonumber(ARGV[1])
if seq <= h then return {h, 0} end
local through = h
for i = 3, #ARGV, 2 do
  local from = tonumber(ARGV[i])
  local to = tonumber(ARGV[i + 1])
  if from > through + 1 then break end
  if to > through then through = to end
end
local expected = through + 1
local g = tonumber(redis.call('HGET', KEYS[1], 'g') or '0')
if seq > expected and seq - 1 > g then
  redis.call('HSET', KEYS[1], 'g', seq - 1)
  if redis.call('HGET', KEYS[1], 'f') ~= '1' then redis.call('PEXPIRE', KEYS[1], ARGV[2]) end
  return {h, expected}
end
return {h, 0}`;

/**
 * Commit: KEYS[1] the task's hash; ARGV seq, finished ('1'/'0'), idle TTL ms, finished TTL ms.
 * Raises h and g to seq, marks finished, sets the key's expiry; returns h before.
 */
const COMMIT_SCRIPT = `
local h = tonumber(redis.call('HGET', KEYS[1], 'h') or '0')
local g = tonumber(redis.call('HGET', KEYS[1], 'g') or '0')
local seq = tonumber(ARGV[1])
if seq > h then redis.call('HSET', KEYS[1], 'h', seq) end
if seq > g then redis.call('HSET', KEYS[1], 'g', seq) end
if ARGV[2] == '1' then
  redis.call('HSET', KEYS[1], 'f', '1')
  redis.call('PEXPIRE', KEYS[1], ARGV[4])
elseif redis.call('HGET', KEYS[1], 'f') ~= '1' then
  redis.call('PEXPIRE', KEYS[1], ARGV[3])
end
return h`;

/** Counters of a {@link RedisSeqStateStore}, this instance only. */
export interface RedisSeqStateStats {
  /** Gaps this instance was told to report (each gap is told to one instance). */
  readonly gaps: number;
  /** Seqs this instance committed after delivery. */
  readonly committed: number;
  /** Events refused with 503 because Redis did not answer. */
  readonly unavailable: number;
}

/**
 * The Redis adapter of the receiver's {@link SeqStateStore}: several app instances behind a load
 * balancer share each task's highest delivered seq and gap record, so alternating events are
 * not false gaps and a real gap is reported once. One small hash per task, updated by Lua
 * scripts (atomic); it expires `finishedTtlS` after the task's end, or `idleTtlS` after its last
 * event. When Redis does not answer, `begin` answers unavailable: the receiver refuses the event
 * with 503 + Retry-After (never delivered without its seq check), logged and counted.
 */
export class RedisSeqStateStore extends RedisReceiverStore implements SeqStateStore {
  private readonly options: ResolvedRedisSeqStateOptions;
  private readonly counts = { gaps: 0, committed: 0 };

  /**
   * @param client a connected node-redis client, without offline queue and with a command
   *   timeout (as {@link createRedisSeqStateStore} makes it).
   * @param ownsClient whether {@link close} closes the client.
   */
  constructor(client: RedisClient, options: RedisSeqStateOptions = {}, ownsClient = false) {
    const resolved = resolveRedisSeqStateOptions(options);
    super(
      client,
      resolved,
      'Redis did not answer a seq-state check: refusing events with 503 + Retry-After so that the poster retries',
      ownsClient,
    );
    this.options = resolved;
  }

  stats(): RedisSeqStateStats {
    return { ...this.counts, unavailable: this.refusals.count };
  }

  async begin(task: SeqTaskRef, seq: number, coalesced: readonly [number, number][]): Promise<SeqBegin> {
    const key = this.keyOf(task);
    try {
      const reply = (await this.client.eval(BEGIN_SCRIPT, {
        keys: [key],
        arguments: [String(seq), String(this.options.idleTtlMs), ...coalesced.flat().map(String)],
      })) as [number, number];
      const [highest, expected] = reply;
      if (expected > 0) this.counts.gaps += 1;
      return { state: 'ok', highest, gapExpected: expected > 0 ? expected : undefined };
    } catch (error) {
      return this.refusals.refuse(error, key);
    }
  }

  async commit(task: SeqTaskRef, seq: number, finished: boolean): Promise<number> {
    const o = this.options;
    const before = (await this.client.eval(COMMIT_SCRIPT, {
      keys: [this.keyOf(task)],
      arguments: [String(seq), finished ? '1' : '0', String(o.idleTtlMs), String(o.finishedTtlMs)],
    })) as number;
    this.counts.committed += 1;
    return before;
  }

  /** `<prefix><server>:<task_id>`, both URI-encoded so that a ':' in a name cannot collide. */
  private keyOf(task: SeqTaskRef): string {
    return `${this.options.keyPrefix}${encodeURIComponent(task.server)}:${encodeURIComponent(task.taskId)}`;
  }
}
