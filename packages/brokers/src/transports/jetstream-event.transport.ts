import { type Clock, ConfigError, type EventDelivery, type Logger } from '@robot-mcp-kit/core';
import { jetstream, type JetStreamClient, jetstreamManager } from '@nats-io/jetstream';
import { headers as natsHeaders, type NatsConnection } from '@nats-io/transport-node';
import { type BrokerCommonOptions } from '../shared/broker-options.js';
import {
  BROKER_HEADERS,
  EVENT_CONTENT_TYPE,
  errorText,
  eventAddress,
  nameToken,
  type SignedMessage,
} from '../shared/signed-message.js';
import {
  BrokerEventTransport,
  BrokerPublisher,
  type TransportSettings,
  transportSettings,
} from '../shared/broker-publisher.js';
import {
  checkStreamCovers,
  ensureStream,
  type JetStreamStreamOptions,
  type ResolvedStream,
  resolveNatsTarget,
  streamStorageWarning,
} from './jetstream-stream.config.js';
import { connectNats, parseNatsUrl } from './nats-connection.js';
/** Options of {@link JetStreamEventTransport}. */
export interface JetStreamEventTransportOptions extends BrokerCommonOptions {
  /**
   * `nats://host:4222` (`tls://` for TLS); user info in the URL is used as credentials, and
   * `?subject_prefix=&stream=&retention=&max_age_s=` as the options of those names.
   */
  url: string;
  /** First subject tokens (default `rmk`): subjects are `<prefix>.<server>.<task_id>.<type>`. */
  subjectPrefix?: string;
  /** The stream, created file-backed when missing. */
  stream?: JetStreamStreamOptions;
  /** Create the stream when it is missing (default true); false fails `open()` instead. */
  createStream?: boolean;
  clock?: Clock;
  logger?: Logger;
}

/**
 * The NATS JetStream adapter of the `EventTransport` port: one JetStream publish per attempt
 * with `Nats-Msg-Id` = `event_id` (the stream drops duplicates within its window) and the
 * `X-RVC-*` headers signed as over HTTP. An attempt counts as delivered when the stream's
 * publish acknowledgement arrives, i.e. once the event is stored. Never retries, never throws.
 */
export class JetStreamEventTransport extends BrokerEventTransport<NatsLink> {
  readonly description: string;
  /**
   * Publishes awaiting their stream acknowledgement at once, for the poster (its default of 8 is
   * for HTTP connections); one NATS connection carries them all.
   */
  readonly maxInFlight = 64;
  private readonly url: URL;
  private readonly options: JetStreamEventTransportOptions;
  private readonly prefix: string;
  private readonly stream: ResolvedStream;
  private readonly settings: TransportSettings;
  /** @internal */
  protected readonly publisher: BrokerPublisher<NatsLink>;

  constructor(options: JetStreamEventTransportOptions) {
    super();
    this.url = parseNatsUrl(options.url, 'url');
    this.options = options;
    ({ prefix: this.prefix, stream: this.stream } = resolveNatsTarget(
      this.url,
      options.subjectPrefix,
      options.stream,
    ));
    this.description = `${this.url.protocol}//${this.url.host} stream ${this.stream.name}`;
    this.settings = transportSettings(options, this.description);
    this.publisher = new BrokerPublisher<NatsLink>(
      {
        system: 'nats',
        done: 'event stored',
        notLive: 'NATS connection closed',
        connect: () => this.connect(),
        isLive: (link) => !link.nc.isClosed(),
        destination: (event) => this.subjectOf(event),
        publish: (link, subject, message, delivery) => this.publish(link, subject, message, delivery),
        disconnect: ({ nc }) => nc.drain().catch(() => nc.close()),
      },
      options,
      this.settings,
    );
  }

  /** The subject of an event: `<prefix>.<server>.<task_id>.<type>`, each token percent-encoded. */
  subjectOf(event: { server: string; task_id: string; type: string }): string {
    return eventAddress(this.prefix, '.', event);
  }

  private async publish(
    { js }: NatsLink,
    subject: string,
    { payload, headers }: SignedMessage,
    delivery: EventDelivery,
  ): Promise<Record<string, unknown>> {
    const h = natsHeaders();
    for (const [name, value] of Object.entries(headers)) h.set(name, value);
    h.set(BROKER_HEADERS.contentType, EVENT_CONTENT_TYPE);
    const ack = await js.publish(subject, payload, {
      msgID: delivery.event.event_id,
      headers: h,
      timeout: this.settings.timeoutMs,
    });
    return { stream_seq: ack.seq, duplicate: ack.duplicate };
  }

  private async connect(): Promise<NatsLink> {
    const { connectTimeoutMs, logger } = this.settings;
    const nc = await connectNats(this.url, this.options, connectTimeoutMs, logger);
    try {
      const jsm = await jetstreamManager(nc, { timeout: connectTimeoutMs });
      const result = await ensureStream(jsm, this.stream);
      await checkStreamCovers(
        jsm,
        this.stream,
        `${this.prefix}.${nameToken(this.options.serverName)}.probe.progress`,
      );
      logger.info(`JetStream stream ${result === 'created' ? 'created' : 'found'}`, {
        stream: this.stream.name,
      });
      const warning = await streamStorageWarning(jsm, this.stream.name);
      if (warning !== undefined) logger.warn(warning, { stream: this.stream.name });
    } catch (err) {
      await nc.close().catch(() => undefined);
      throw new ConfigError(
        'RVC_CALLBACK_URL',
        `NATS at ${this.url.host} cannot store events in stream ${this.stream.name} (${errorText(err)}); ` +
          'start nats-server with JetStream enabled (-js -sd <dir>) and check that the stream subjects do not overlap another stream',
      );
    }
    return { nc, js: jetstream(nc, { timeout: this.settings.timeoutMs }) };
  }
}

/** A live NATS connection and its JetStream client. */
interface NatsLink {
  readonly nc: NatsConnection;
  readonly js: JetStreamClient;
}
