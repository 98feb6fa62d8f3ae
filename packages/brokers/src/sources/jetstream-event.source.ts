import { ConfigError, type Logger, silentLogger } from '@robot-mcp-kit/core';
import {
  AckPolicy,
  type ConsumerMessages,
  DeliverPolicy,
  jetstream,
  jetstreamManager,
  type JsMsg,
} from '@nats-io/jetstream';
import { nanos, type NatsConnection } from '@nats-io/transport-node';
import { type BrokerTlsOptions, checkPrefix, positiveMs } from '../shared/broker-options.js';
import { errorText } from '../shared/signed-message.js';
import {
  ensureStream,
  type JetStreamStreamOptions,
  type ResolvedStream,
  resolveStream,
  streamStorageWarning,
  streamWithUrl,
} from '../transports/jetstream-stream.config.js';
import { fromCodeOrUrl, natsUrlOptions } from '../shared/broker-url.js';
import { connectNats, parseNatsUrl } from '../transports/nats-connection.js';
import { checkRetryDelays, type EventIntake, lowerCaseHeaders, offerMessage } from './event-intake.js';
import { type SourceStats } from './mqtt-event.source.js';

/** Options of {@link JetStreamEventSource}. */
export interface JetStreamEventSourceOptions {
  /**
   * `nats://host:4222`; `?subject_prefix=&stream=&retention=&max_age_s=` set the options of those
   * names (the robots' `RVC_CALLBACK_URL` can be copied as it is).
   */
  url: string;
  /** The receiver (`createEventReceiver(...)`) whose pipeline judges every message. */
  receiver: EventIntake;
  /**
   * The durable consumer's name: the stream remembers what it acknowledged, so an app restart
   * resumes where it stopped. App instances with the same name share the work (each event once).
   */
  durable: string;
  /** The publishers' subject prefix (default `rmk`); the consumer filters `<prefix>.>`. */
  subjectPrefix?: string;
  /** The stream (same options as the transport); created file-backed when missing. */
  stream?: JetStreamStreamOptions;
  /** How long an unacknowledged message waits before redelivery, in ms (default 30 000). */
  ackWaitMs?: number;
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

/**
 * The JetStream side of the app: a durable pull consumer with explicit acks, feeding each
 * message to the receiver's pipeline one at a time, in stream order. A message is acknowledged
 * only once the receiver accepted it; a refused one is terminated (never redelivered).
 */
export class JetStreamEventSource {
  private readonly url: URL;
  private readonly options: JetStreamEventSourceOptions;
  private readonly prefix: string;
  private readonly stream: ResolvedStream;
  private readonly logger: Logger;
  private readonly retryDelaysMs: readonly number[];
  private readonly abort = new AbortController();
  private readonly counts: SourceStats = { acked: 0, rejected: 0, reoffered: 0 };
  private nc: NatsConnection | undefined;
  private messages: ConsumerMessages | undefined;
  private loop: Promise<void> | undefined;

  constructor(options: JetStreamEventSourceOptions) {
    this.url = parseNatsUrl(options.url, 'url');
    if (typeof options.receiver?.receive !== 'function') {
      throw new ConfigError(
        'receiver',
        'must be an EventReceiver (createEventReceiver from @robot-mcp-kit/receiver)',
      );
    }
    if (typeof options.durable !== 'string' || !/^[A-Za-z0-9_-]{1,64}$/.test(options.durable)) {
      throw new ConfigError(
        'durable',
        'must be 1-64 letters, digits, "-" or "_", stable across restarts (e.g. "chat-app")',
      );
    }
    const fromUrl = natsUrlOptions(this.url, 'url');
    const prefix = fromCodeOrUrl(
      options.subjectPrefix,
      fromUrl.subjectPrefix,
      'subjectPrefix',
      'subject_prefix',
    );
    this.prefix = checkPrefix(prefix ?? 'rmk', 'subjectPrefix', '.');
    this.stream = resolveStream(streamWithUrl(options.stream, fromUrl), this.prefix);
    this.options = options;
    this.retryDelaysMs = checkRetryDelays(options.retryDelaysMs, 'retryDelaysMs');
    this.logger = (options.logger ?? silentLogger).child({
      source: `nats://${this.url.host}`,
      durable: options.durable,
    });
  }

  stats(): SourceStats {
    return { ...this.counts };
  }

  /** Connects, makes sure the stream and the durable consumer exist, and starts consuming. */
  async start(): Promise<void> {
    const connectTimeoutMs = positiveMs(this.options.connectTimeoutMs, 5_000, 'connectTimeoutMs');
    const ackWaitMs = positiveMs(this.options.ackWaitMs, 30_000, 'ackWaitMs');
    const stream = this.stream;
    const nc = await connectNats(this.url, this.options, connectTimeoutMs, this.logger, 'url');
    try {
      const jsm = await jetstreamManager(nc, { timeout: connectTimeoutMs });
      await ensureStream(jsm, stream);
      const warning = await streamStorageWarning(jsm, stream.name);
      if (warning !== undefined) this.logger.warn(warning, { stream: stream.name });
      await jsm.consumers.add(stream.name, {
        durable_name: this.options.durable,
        ack_policy: AckPolicy.Explicit,
        deliver_policy: DeliverPolicy.All,
        ack_wait: nanos(ackWaitMs),
        filter_subject: `${this.prefix}.>`,
        max_deliver: -1,
      });
      const consumer = await jetstream(nc).consumers.get(stream.name, this.options.durable);
      this.messages = await consumer.consume({ max_messages: 64 });
    } catch (err) {
      await nc.close().catch(() => undefined);
      throw new ConfigError(
        'url',
        `cannot consume stream ${stream.name} as "${this.options.durable}" at NATS ${this.url.host} (${errorText(err)}); ` +
          'start nats-server with JetStream (-js), and use the same stream options as the robots',
      );
    }
    this.nc = nc;
    this.loop = this.run(this.messages);
    this.logger.info('JetStream event source consuming', { stream: stream.name });
  }

  /** Stops: the message in progress stays unacknowledged (redelivered after `ackWaitMs`). */
  async close(): Promise<void> {
    this.abort.abort();
    const messages = this.messages;
    this.messages = undefined;
    if (messages) await messages.close().catch(() => undefined);
    await this.loop;
    const nc = this.nc;
    this.nc = undefined;
    if (nc) await nc.drain().catch(() => nc.close());
  }

  private async run(messages: ConsumerMessages): Promise<void> {
    try {
      for await (const msg of messages) {
        if (this.abort.signal.aborted) break;
        await this.handle(msg);
      }
    } catch (err) {
      if (!this.abort.signal.aborted)
        this.logger.error('JetStream consumption stopped', { error: errorText(err) });
    }
  }

  private async handle(msg: JsMsg): Promise<void> {
    const entries: [string, string][] = [];
    if (msg.headers) for (const name of msg.headers.keys()) entries.push([name, msg.headers.get(name)]);
    const headers = lowerCaseHeaders(entries);
    headers['content-type'] ??= 'application/json';
    const keepAlive = setInterval(() => msg.working(), 5_000);
    try {
      const verdict = await offerMessage(
        this.options.receiver,
        headers,
        msg.data,
        this.abort.signal,
        this.logger,
        () => {
          this.counts.reoffered += 1;
        },
        this.retryDelaysMs,
      );
      if (verdict === 'ack') {
        await msg.ackAck().catch(() => msg.ack());
        this.counts.acked += 1;
      } else if (verdict === 'reject') {
        msg.term('rejected by the receiver');
        this.counts.rejected += 1;
      }
    } finally {
      clearInterval(keepAlive);
    }
  }
}
