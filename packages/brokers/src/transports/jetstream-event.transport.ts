import {
  type Clock,
  ConfigError,
  type DeliveryOutcome,
  type EventDelivery,
  type EventTransport,
  type Logger,
  silentLogger,
  systemClock,
} from '@robot-mcp-kit/core';
import { jetstream, type JetStreamClient, jetstreamManager } from '@nats-io/jetstream';
import { headers as natsHeaders, type NatsConnection } from '@nats-io/transport-node';
import { type BrokerCommonOptions, checkCommon, checkPrefix, positiveMs } from '../shared/broker-options.js';
import {
  BROKER_HEADERS,
  EVENT_CONTENT_TYPE,
  errorText,
  nameToken,
  signMessage,
} from '../shared/signed-message.js';
import { publishAttempt } from '../shared/publish-attempt.js';
import { ConnectOnce } from '../shared/connect-once.js';
import {
  checkStreamCovers,
  ensureStream,
  type JetStreamStreamOptions,
  type ResolvedStream,
  resolveStream,
  streamStorageWarning,
  streamWithUrl,
} from './jetstream-stream.config.js';
import { fromCodeOrUrl, natsUrlOptions } from '../shared/broker-url.js';
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
export class JetStreamEventTransport implements EventTransport {
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
  private readonly timeoutMs: number;
  private readonly connectTimeoutMs: number;
  private readonly clock: Clock;
  private readonly logger: Logger;
  private nc: NatsConnection | undefined;
  private js: JetStreamClient | undefined;
  private readonly connection = new ConnectOnce(() => this.connect());
  private closed = false;

  constructor(options: JetStreamEventTransportOptions) {
    checkCommon(options);
    this.url = parseNatsUrl(options.url, 'url');
    this.options = options;
    const fromUrl = natsUrlOptions(this.url, 'url');
    const prefix = fromCodeOrUrl(
      options.subjectPrefix,
      fromUrl.subjectPrefix,
      'subjectPrefix',
      'subject_prefix',
    );
    this.prefix = checkPrefix(prefix ?? 'rmk', 'subjectPrefix', '.');
    this.stream = resolveStream(streamWithUrl(options.stream, fromUrl), this.prefix);
    this.timeoutMs = positiveMs(options.timeoutMs, 10_000, 'timeoutMs');
    this.connectTimeoutMs = positiveMs(options.connectTimeoutMs, 5_000, 'connectTimeoutMs');
    this.clock = options.clock ?? systemClock;
    this.description = `${this.url.protocol}//${this.url.host} stream ${this.stream.name}`;
    this.logger = (options.logger ?? silentLogger).child({ target: this.description });
  }

  /** The subject of an event: `<prefix>.<server>.<task_id>.<type>`, each token percent-encoded. */
  subjectOf(event: { server: string; task_id: string; type: string }): string {
    return [this.prefix, nameToken(event.server), nameToken(event.task_id), nameToken(event.type)].join('.');
  }

  /**
   * Connects and makes sure the stream exists. @throws ConfigError naming `RVC_CALLBACK_URL`
   * with the fix when NATS cannot be reached, has no JetStream, or the stream cannot be created.
   */
  open(): Promise<void> {
    return this.connection.open();
  }

  async send(delivery: EventDelivery): Promise<DeliveryOutcome> {
    if (this.closed) return { ok: false, error: 'transport closed' };
    const notReady = await this.connection.ready();
    if (notReady !== undefined) return { ok: false, error: notReady };
    const js = this.js;
    if (!js || this.nc?.isClosed()) return { ok: false, error: 'NATS connection closed' };
    const { payload, headers } = signMessage(
      delivery,
      this.options.serverName,
      this.options.secret,
      this.clock,
    );
    const h = natsHeaders();
    for (const [name, value] of Object.entries(headers)) h.set(name, value);
    h.set(BROKER_HEADERS.contentType, EVENT_CONTENT_TYPE);
    const subject = this.subjectOf(delivery.event);
    return publishAttempt(
      delivery,
      this.logger,
      { system: 'nats', destination: subject, done: 'event stored' },
      async () => {
        const ack = await js.publish(subject, payload, {
          msgID: delivery.event.event_id,
          headers: h,
          timeout: this.timeoutMs,
        });
        return { stream_seq: ack.seq, duplicate: ack.duplicate };
      },
    );
  }

  async close(): Promise<void> {
    this.closed = true;
    const nc = this.nc;
    this.nc = undefined;
    this.js = undefined;
    if (nc) await nc.drain().catch(() => nc.close());
  }

  private async connect(): Promise<void> {
    const nc = await connectNats(this.url, this.options, this.connectTimeoutMs, this.logger);
    try {
      const jsm = await jetstreamManager(nc, { timeout: this.connectTimeoutMs });
      const result = await ensureStream(jsm, this.stream);
      await checkStreamCovers(
        jsm,
        this.stream,
        `${this.prefix}.${nameToken(this.options.serverName)}.probe.progress`,
      );
      this.logger.info(`JetStream stream ${result === 'created' ? 'created' : 'found'}`, {
        stream: this.stream.name,
      });
      const warning = await streamStorageWarning(jsm, this.stream.name);
      if (warning !== undefined) this.logger.warn(warning, { stream: this.stream.name });
    } catch (err) {
      await nc.close().catch(() => undefined);
      throw new ConfigError(
        'RVC_CALLBACK_URL',
        `NATS at ${this.url.host} cannot store events in stream ${this.stream.name} (${errorText(err)}); ` +
          'start nats-server with JetStream enabled (-js -sd <dir>) and check that the stream subjects do not overlap another stream',
      );
    }
    if (this.closed) {
      await nc.close();
      return;
    }
    this.nc = nc;
    this.js = jetstream(nc, { timeout: this.timeoutMs });
  }
}
