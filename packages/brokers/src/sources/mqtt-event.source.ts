import { ConfigError, type Logger, silentLogger } from '@robot-mcp-kit/core';
import mqtt, { type IClientOptions, type IPublishPacket, type MqttClient } from 'mqtt';
import {
  type BrokerTlsOptions,
  checkPrefix,
  describeBrokerUrl,
  positiveMs,
} from '../shared/broker-options.js';
import { errorText } from '../shared/signed-message.js';
import { connectUrl, fromCodeOrUrl, mqttUrlOptions } from '../shared/broker-url.js';
import { parseMqttUrl, waitForConnect } from '../transports/mqtt-event.transport.js';
import { checkRetryDelays, type EventIntake, lowerCaseHeaders, offerMessage } from './event-intake.js';
import { watchMqttConnection } from '../shared/mqtt-connection.watch.js';

/**
 * Warns when a reconnect finds no session on the broker (CONNACK session present = 0): the broker
 * restarted without persistence (Mosquitto's default) or the session expired, so what was queued
 * for this app is gone. The first connection of a process cannot tell a new client id from a lost
 * session, so it only logs at info.
 */
function watchSessionKept(client: MqttClient, logger: Logger): void {
  let connects = 0;
  client.on('connect', (connack) => {
    connects += 1;
    if (connack.sessionPresent) return;
    if (connects === 1) logger.info('MQTT broker had no session for this client id (new, or lost)');
    else logger.warn(SESSION_LOST_WARNING);
  });
}

/** What a lost MQTT session means, and the fix. */
export const SESSION_LOST_WARNING =
  "MQTT broker lost this app's session on reconnect: events queued for it while it was away are gone. " +
  'The broker restarted without persistence (Mosquitto: persistence true in mosquitto.conf) or ' +
  'the session outlived sessionExpiryS; see docs/transports.md, Durability';

const SOURCE_FIX =
  'Give each app instance its own clientId (instances that share the work use the same `group`), ' +
  'and never a robot client_id.';

/** Options of {@link MqttEventSource}. */
export interface MqttEventSourceOptions {
  /** `mqtt://host:1883` or `mqtts://host:8883`; `?topic_prefix=&client_id=` set those options. */
  url: string;
  /** The receiver (`createEventReceiver(...)`) whose pipeline judges every message. */
  receiver: EventIntake;
  /**
   * Stable client id: the broker keeps this app's persistent session (subscription and QoS 1
   * messages queued while it is away) under it. Required; one per app instance.
   */
  clientId: string;
  /** The publishers' topic prefix (default `rmk`); subscribes to `<prefix>/#`. */
  topicPrefix?: string;
  /**
   * Shared-subscription group: app instances with the same group each get a share of the
   * messages (`$share/<group>/<prefix>/#`), so every event is consumed by one of them.
   */
  group?: string;
  /** How long the broker keeps the session while the app is away, in seconds (default 86 400). */
  sessionExpiryS?: number;
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

/**
 * The MQTT 5 side of the app: a persistent session (clean start off, session expiry) with a QoS 1
 * subscription, feeding each message to the receiver's pipeline one at a time. The PUBACK is sent
 * only once the receiver accepted the event, so an app that stops mid-message gets it again.
 */
export class MqttEventSource {
  private readonly url: URL;
  private readonly options: MqttEventSourceOptions;
  private readonly topic: string;
  private readonly clientId: string;
  private readonly logger: Logger;
  private readonly retryDelaysMs: readonly number[];
  private readonly abort = new AbortController();
  private client: MqttClient | undefined;
  private readonly counts: SourceStats = { acked: 0, rejected: 0, reoffered: 0 };

  constructor(options: MqttEventSourceOptions) {
    this.url = parseMqttUrl(options.url, 'url');
    if (typeof options.receiver?.receive !== 'function') {
      throw new ConfigError(
        'receiver',
        'must be an EventReceiver (createEventReceiver from @robot-mcp-kit/receiver)',
      );
    }
    const fromUrl = mqttUrlOptions(this.url, 'url');
    const clientId = fromCodeOrUrl(options.clientId, fromUrl.clientId, 'clientId', 'client_id');
    if (typeof clientId !== 'string' || !/^[A-Za-z0-9_-]{1,64}$/.test(clientId)) {
      throw new ConfigError(
        'clientId',
        'must be 1-64 letters, digits, "-" or "_", stable across restarts (e.g. "app-1")',
      );
    }
    this.clientId = clientId;
    const topicPrefix = fromCodeOrUrl(
      options.topicPrefix,
      fromUrl.topicPrefix,
      'topicPrefix',
      'topic_prefix',
    );
    const prefix = checkPrefix(topicPrefix ?? 'rmk', 'topicPrefix', '/');
    const group = options.group === undefined ? undefined : checkPrefix(options.group, 'group', '.');
    this.topic = group === undefined ? `${prefix}/#` : `$share/${group}/${prefix}/#`;
    this.options = options;
    this.retryDelaysMs = checkRetryDelays(options.retryDelaysMs, 'retryDelaysMs');
    this.logger = (options.logger ?? silentLogger).child({
      source: describeBrokerUrl(this.url),
      topic: this.topic,
    });
  }

  stats(): SourceStats {
    return { ...this.counts };
  }

  /** Connects and subscribes. @throws ConfigError with the fix when the broker cannot be reached. */
  async start(): Promise<void> {
    const connectTimeoutMs = positiveMs(this.options.connectTimeoutMs, 5_000, 'connectTimeoutMs');
    const client = mqtt.connect(connectUrl(this.url), this.clientOptions(connectTimeoutMs));
    client.handleMessage = (packet, callback) => {
      this.handle(packet, callback).catch((err: unknown) => {
        this.logger.error('MQTT message handling failed; left unacknowledged', { error: errorText(err) });
        callback(err instanceof Error ? err : new Error(String(err)));
      });
    };
    watchMqttConnection(client, this.clientId, this.logger, SOURCE_FIX);
    watchSessionKept(client, this.logger);
    client.on('error', (err) => this.logger.warn('MQTT client error', { error: errorText(err) }));
    try {
      await waitForConnect(client, connectTimeoutMs);
      // A resumed session keeps the subscription; subscribing again is harmless and covers a new one.
      await client.subscribeAsync(this.topic, { qos: 1 });
    } catch (err) {
      await client.endAsync(true).catch(() => undefined);
      throw new ConfigError(
        'url',
        `cannot subscribe at the MQTT broker ${describeBrokerUrl(this.url)} (${errorText(err)}); ` +
          'start the broker or fix the URL, credentials or TLS settings',
      );
    }
    this.client = client;
    this.logger.info('MQTT event source subscribed');
  }

  /**
   * Stops: the message in progress is left unacknowledged (the broker redelivers it to this
   * session later), the connection closes and the session stays on the broker.
   */
  async close(): Promise<void> {
    this.abort.abort();
    const client = this.client;
    this.client = undefined;
    if (client) await client.endAsync(true).catch(() => undefined);
  }

  private async handle(packet: IPublishPacket, callback: (error?: Error) => void): Promise<void> {
    const props = packet.properties?.userProperties ?? {};
    const entries: [string, string][] = [];
    for (const [name, value] of Object.entries(props)) {
      entries.push([name, Array.isArray(value) ? String(value[0]) : String(value)]);
    }
    const headers = lowerCaseHeaders(entries);
    headers['content-type'] = packet.properties?.contentType ?? headers['content-type'] ?? 'application/json';
    const body = typeof packet.payload === 'string' ? Buffer.from(packet.payload, 'utf8') : packet.payload;
    const verdict = await offerMessage(
      this.options.receiver,
      headers,
      body,
      this.abort.signal,
      this.logger,
      () => {
        this.counts.reoffered += 1;
      },
      this.retryDelaysMs,
    );
    if (verdict === 'stop') return callback(new Error('event source closing: message left unacknowledged'));
    if (verdict === 'ack') this.counts.acked += 1;
    else this.counts.rejected += 1;
    callback();
  }

  private clientOptions(connectTimeoutMs: number): IClientOptions {
    const { options, url } = this;
    return {
      protocolVersion: 5,
      clientId: this.clientId,
      clean: false,
      properties: { sessionExpiryInterval: options.sessionExpiryS ?? 86_400 },
      reconnectPeriod: 1_000,
      connectTimeout: connectTimeoutMs,
      resubscribe: true,
      username: options.username ?? (url.username ? decodeURIComponent(url.username) : undefined),
      password: options.password ?? (url.password ? decodeURIComponent(url.password) : undefined),
      ...(options.tls ?? {}),
    };
  }
}
