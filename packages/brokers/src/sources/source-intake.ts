import { ConfigError, type LogMeta, type Logger, silentLogger } from '@robot-mcp-kit/core';
import { type BrokerTlsOptions, positiveMs } from '../shared/broker-options.js';
import { checkRetryDelays, type EventIntake, type MessageVerdict, offerMessage } from './event-intake.js';

/** Options every broker source (MQTT, JetStream) shares. */
export interface BrokerSourceOptions {
  /** The receiver (`createEventReceiver(...)`) whose pipeline judges every message. */
  receiver: EventIntake;
  connectTimeoutMs?: number;
  /**
   * Pauses before offering a refused message again (5xx: `onEvent` threw, the dedupe store is
   * down), in ms; the last repeats (default 500, 2 000, 8 000, 30 000).
   */
  retryDelaysMs?: readonly number[];
  username?: string;
  password?: string;
  tls?: BrokerTlsOptions;
  logger?: Logger;
}

/** Counters of a broker source. */
export interface SourceStats {
  /** Messages acknowledged after the receiver accepted them (or knew them as duplicates). */
  acked: number;
  /** Messages dropped because the receiver refused them for good (4xx). */
  rejected: number;
  /** Times a message was offered again after `onEvent` refused it. */
  reoffered: number;
}

/** @throws ConfigError naming `receiver` unless it is an EventReceiver. */
export function checkReceiver(receiver: EventIntake | undefined): void {
  if (typeof receiver?.receive !== 'function') {
    throw new ConfigError(
      'receiver',
      'must be an EventReceiver (createEventReceiver from @robot-mcp-kit/receiver)',
    );
  }
}

/**
 * What the MQTT and JetStream sources share, by composition: the receiver's pipeline behind
 * {@link offerMessage} with the source's retry pauses, its logger, the stop signal and the counters.
 */
export class SourceIntake {
  readonly logger: Logger;
  private readonly retryDelaysMs: readonly number[];
  private readonly abort = new AbortController();
  private readonly counts: SourceStats = { acked: 0, rejected: 0, reoffered: 0 };
  private readonly receiver: EventIntake;
  private readonly connectTimeout: number | undefined;

  /** @throws ConfigError naming `retryDelaysMs` when it is not a list of positive milliseconds */
  constructor(options: BrokerSourceOptions, logMeta: LogMeta) {
    this.receiver = options.receiver;
    this.connectTimeout = options.connectTimeoutMs;
    this.retryDelaysMs = checkRetryDelays(options.retryDelaysMs, 'retryDelaysMs');
    this.logger = (options.logger ?? silentLogger).child(logMeta);
  }

  /** The first connection's deadline (default 5 000 ms). @throws ConfigError naming `connectTimeoutMs` */
  connectTimeoutMs(): number {
    return positiveMs(this.connectTimeout, 5_000, 'connectTimeoutMs');
  }

  /** Aborted once the source closes. */
  get signal(): AbortSignal {
    return this.abort.signal;
  }

  stop(): void {
    this.abort.abort();
  }

  stats(): SourceStats {
    return { ...this.counts };
  }

  /** Offers one message until the receiver decides (see {@link offerMessage}); counts re-offers. */
  offer(headers: Readonly<Record<string, string>>, body: Uint8Array): Promise<MessageVerdict> {
    return offerMessage(
      this.receiver,
      headers,
      body,
      this.abort.signal,
      this.logger,
      () => {
        this.counts.reoffered += 1;
      },
      this.retryDelaysMs,
    );
  }

  /** Counts a message the source acknowledged (`ack`) or dropped (`reject`). */
  count(verdict: 'ack' | 'reject'): void {
    if (verdict === 'ack') this.counts.acked += 1;
    else this.counts.rejected += 1;
  }
}

/** What the MQTT and JetStream sources share: their counters, served by their {@link SourceIntake}. */
export abstract class BrokerEventSource {
  /** @internal */
  protected abstract readonly intake: SourceIntake;

  stats(): SourceStats {
    return this.intake.stats();
  }
}
