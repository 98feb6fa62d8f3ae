/** Counters of a `RedisEventOutbox`, this replica only. */
export interface RedisEventOutboxStats {
  /** Events written to the stream (first try or once Redis was back). */
  readonly appended: number;
  /** Events removed once delivered or given up. */
  readonly acked: number;
  /** Events not stored because the stream was at `maxEntries` or `maxBytes` (delivered from memory only). */
  readonly refusedFull: number;
  /** Writes that failed (Redis unreachable); kept in memory to write again, up to `maxRetryBytes`. */
  readonly writeErrors: number;
  /** Failed writes given up because the retry buffer was full. */
  readonly retryDropped: number;
  /** Removals that failed (retried on the next tick). */
  readonly ackErrors: number;
  /** Events taken over: from a former life of this replica or from dead replicas. */
  readonly takenOver: number;
  /** Background passes (renewal, takeover, rewrites) that failed on a Redis error. */
  readonly redisErrors: number;
  /** Entries taken over without a valid MAC (forged through Redis, or from before store MACs): removed, never delivered. */
  readonly refusedUnauthentic: number;
  /** Events not stored because this replica was fenced (a survivor took its tasks over). */
  readonly refusedFenced: number;
}
