import { errorText } from './redis-connection.js';
import { RedisReceiverStore } from './redis-receiver.store.js';
import { randomUUID } from 'node:crypto';
import { systemClock } from '@robot-mcp-kit/core';
import { Backoff, pollUntil } from '@robot-mcp-kit/core/support';
import { type DedupeClaim, type DedupeStore } from '@robot-mcp-kit/receiver';
import { type RedisClient } from './redis-connection.js';
import {
  type RedisDedupeOptions,
  type ResolvedRedisDedupeOptions,
  resolveRedisDedupeOptions,
} from './redis-dedupe.options.js';

export type { RedisClient };

/** The value of a key whose event was delivered. */
const DELIVERED = 'delivered';
/** The prefix of the value of a key being delivered: `claimed:<token of the claim>`. */
const CLAIMED = 'claimed:';
/** Deletes the key only while it still holds this claim's token (never another instance's). */
const RELEASE_SCRIPT =
  "if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) else return 0 end";

/** Counters of a {@link RedisDedupeStore}, this instance only. */
export interface RedisDedupeStats {
  /** Claims this instance took (new ids it delivered or tried to). */
  readonly claimed: number;
  /** Ids this instance delivered and stored as delivered. */
  readonly delivered: number;
  /** Claims released after a failed `onEvent`, so that the retry is delivered. */
  readonly released: number;
  /** Ids found delivered (or being delivered) by an instance. */
  readonly duplicates: number;
  /** Claims refused with 503 because Redis did not answer. */
  readonly unavailable: number;
  /** `settle` calls Redis did not take (see docs/receiver.md: the claim then expires). */
  readonly settleErrors: number;
}

/**
 * The Redis adapter of the receiver's {@link DedupeStore}: several app instances behind a load
 * balancer share it, so each `event_id` reaches `onEvent` once across all of them. A claim is
 * `SET key claimed:<token> NX PX claimTtl` (atomic: one instance wins); a delivered id becomes
 * `SET key delivered PX retention`, where retention never ends before the replay window
 * (2 × maxSkewS + 60 s); a failed delivery deletes the claim so that the retry is delivered.
 * When Redis does not answer, the event is refused with 503 + Retry-After (never delivered
 * without a claim), logged and counted.
 */
export class RedisDedupeStore extends RedisReceiverStore implements DedupeStore {
  private readonly options: ResolvedRedisDedupeOptions;
  private readonly counts = {
    claimed: 0,
    delivered: 0,
    released: 0,
    duplicates: 0,
    settleErrors: 0,
  };

  /**
   * @param client a connected node-redis client; use `disableOfflineQueue: true` and a command
   *   timeout so that an outage answers 503 at once (as {@link createRedisDedupeStore} does).
   * @param ownsClient whether {@link close} closes the client.
   */
  constructor(client: RedisClient, options: RedisDedupeOptions = {}, ownsClient = false) {
    const resolved = resolveRedisDedupeOptions(options);
    super(
      client,
      resolved,
      'Redis did not answer a dedupe claim: refusing events with 503 + Retry-After so that the poster retries (no event is delivered without its claim)',
      ownsClient,
    );
    this.options = resolved;
  }

  /** Ids this instance stored as delivered (an estimate of the shared size, for stats). */
  get size(): number {
    return this.counts.delivered;
  }

  stats(): RedisDedupeStats {
    return { ...this.counts, unavailable: this.refusals.count };
  }

  claim(key: string): Promise<DedupeClaim> {
    return this.tryClaim(key, 2);
  }

  private async tryClaim(key: string, attempts: number): Promise<DedupeClaim> {
    const redisKey = this.options.keyPrefix + key;
    const token = CLAIMED + randomUUID();
    try {
      const won = await this.client.set(redisKey, token, {
        condition: 'NX',
        expiration: { type: 'PX', value: this.options.claimTtlMs },
      });
      if (won !== null) {
        this.counts.claimed += 1;
        return { state: 'claimed', settle: (delivered) => this.settle(redisKey, token, delivered) };
      }
      const current = await this.client.get(redisKey);
      if (current === DELIVERED) {
        this.counts.duplicates += 1;
        return { state: 'seen' };
      }
      if (current === null) {
        // released or expired in between: claim again once, else let the poster retry
        if (attempts > 1) return await this.tryClaim(key, attempts - 1);
        return { state: 'in_flight', outcome: Promise.resolve(false) };
      }
      return { state: 'in_flight', outcome: this.waitForOutcome(redisKey, current) };
    } catch (error) {
      return this.refusals.refuse(error, key);
    }
  }

  private async settle(redisKey: string, token: string, delivered: boolean): Promise<void> {
    try {
      if (delivered) {
        await this.client.set(redisKey, DELIVERED, {
          expiration: { type: 'PX', value: this.options.retentionMs },
        });
        this.counts.delivered += 1;
      } else {
        await this.client.eval(RELEASE_SCRIPT, { keys: [redisKey], arguments: [token] });
        this.counts.released += 1;
      }
    } catch (error) {
      this.counts.settleErrors += 1;
      this.options.logger.error(
        delivered
          ? 'Redis did not store a delivered event_id; its claim expires after claimTtlS, after which a retry of it would be delivered again'
          : 'Redis did not release a failed claim; the retry is delivered once the claim expires (claimTtlS)',
        { key: redisKey, error: errorText(error) },
      );
    }
  }

  /** Polls the key another instance claimed: true once delivered, false if released or too slow. */
  private async waitForOutcome(redisKey: string, claimedBy: string): Promise<boolean> {
    const outcome = async (): Promise<boolean | undefined> => {
      let current: string | null;
      try {
        current = await this.client.get(redisKey);
      } catch {
        return false;
      }
      if (current === DELIVERED) {
        this.counts.duplicates += 1;
        return true;
      }
      return current === claimedBy ? undefined : false; // still claimed: ask again
    };
    const answer = await pollUntil(outcome, {
      clock: systemClock,
      withinMs: this.options.inFlightWaitMs,
      pauses: new Backoff(20, 250),
      pauseFirst: true,
    });
    return answer ?? false;
  }
}
