import { ConfigError } from '@robot-mcp-kit/core';
import {
  AckPolicy,
  type ConsumerMessages,
  DeliverPolicy,
  jetstream,
  jetstreamManager,
  type JsMsg,
} from '@nats-io/jetstream';
import { nanos, type NatsConnection } from '@nats-io/transport-node';
import { positiveMs } from '../shared/broker-options.js';
import { errorText } from '../shared/signed-message.js';
import {
  ensureStream,
  type JetStreamStreamOptions,
  type ResolvedStream,
  resolveNatsTarget,
  streamStorageWarning,
} from '../transports/jetstream-stream.config.js';
import { connectNats, parseNatsUrl } from '../transports/nats-connection.js';
import { lowerCaseHeaders } from './event-intake.js';
import { BrokerEventSource, type BrokerSourceOptions, checkReceiver, SourceIntake } from './source-intake.js';

/** Options of {@link JetStreamEventSource}. */
export interface JetStreamEventSourceOptions extends BrokerSourceOptions {
  /**
   * `nats://host:4222`; `?subject_prefix=&stream=&retention=&max_age_s=` set the options of those
   * names (the robots' `RVC_CALLBACK_URL` can be copied as it is).
   */
  url: string;
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
}

/**
 * The JetStream side of the app: a durable pull consumer with explicit acks, feeding each
 * message to the receiver's pipeline one at a time, in stream order. A message is acknowledged
 * only once the receiver accepted it; a refused one is terminated (never redelivered).
 */
export class JetStreamEventSource extends BrokerEventSource {
  private readonly url: URL;
  private readonly options: JetStreamEventSourceOptions;
  private readonly prefix: string;
  private readonly stream: ResolvedStream;
  /** @internal */
  protected readonly intake: SourceIntake;
  private nc: NatsConnection | undefined;
  private messages: ConsumerMessages | undefined;
  private loop: Promise<void> | undefined;

  constructor(options: JetStreamEventSourceOptions) {
    super();
    this.url = parseNatsUrl(options.url, 'url');
    checkReceiver(options.receiver);
    if (typeof options.durable !== 'string' || !/^[A-Za-z0-9_-]{1,64}$/.test(options.durable)) {
      throw new ConfigError(
        'durable',
        'must be 1-64 letters, digits, "-" or "_", stable across restarts (e.g. "chat-app")',
      );
    }
    ({ prefix: this.prefix, stream: this.stream } = resolveNatsTarget(
      this.url,
      options.subjectPrefix,
      options.stream,
    ));
    this.options = options;
    this.intake = new SourceIntake(options, {
      source: `nats://${this.url.host}`,
      durable: options.durable,
    });
  }

  /** Connects, makes sure the stream and the durable consumer exist, and starts consuming. */
  async start(): Promise<void> {
    const connectTimeoutMs = this.intake.connectTimeoutMs();
    const ackWaitMs = positiveMs(this.options.ackWaitMs, 30_000, 'ackWaitMs');
    const stream = this.stream;
    const nc = await connectNats(this.url, this.options, connectTimeoutMs, this.intake.logger, 'url');
    try {
      const jsm = await jetstreamManager(nc, { timeout: connectTimeoutMs });
      await ensureStream(jsm, stream);
      const warning = await streamStorageWarning(jsm, stream.name);
      if (warning !== undefined) this.intake.logger.warn(warning, { stream: stream.name });
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
    this.intake.logger.info('JetStream event source consuming', { stream: stream.name });
  }

  /** Stops: the message in progress stays unacknowledged (redelivered after `ackWaitMs`). */
  async close(): Promise<void> {
    this.intake.stop();
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
        if (this.intake.signal.aborted) break;
        await this.handle(msg);
      }
    } catch (err) {
      if (!this.intake.signal.aborted)
        this.intake.logger.error('JetStream consumption stopped', { error: errorText(err) });
    }
  }

  private async handle(msg: JsMsg): Promise<void> {
    const entries: [string, string][] = [];
    if (msg.headers) for (const name of msg.headers.keys()) entries.push([name, msg.headers.get(name)]);
    const headers = lowerCaseHeaders(entries);
    headers['content-type'] ??= 'application/json';
    const keepAlive = setInterval(() => msg.working(), 5_000);
    try {
      const verdict = await this.intake.offer(headers, msg.data);
      if (verdict === 'ack') await msg.ackAck().catch(() => msg.ack());
      else if (verdict === 'reject') msg.term('rejected by the receiver');
      if (verdict !== 'stop') this.intake.count(verdict);
    } finally {
      clearInterval(keepAlive);
    }
  }
}
