import { ConfigError, type Logger } from '@robot-mcp-kit/core';
import mqtt, { type IClientOptions, type IPublishPacket, type MqttClient } from 'mqtt';
import { checkPrefix, describeBrokerUrl } from '../shared/broker-options.js';
import { errorText } from '../shared/signed-message.js';
import {
  brokerCredentials,
  connectUrl,
  fromCodeOrUrl,
  mqttTopicPrefix,
  mqttUrlOptions,
} from '../shared/broker-url.js';
import { parseMqttUrl, waitForConnect } from '../transports/mqtt-event.transport.js';
import { lowerCaseHeaders } from './event-intake.js';
import { BrokerEventSource, type BrokerSourceOptions, checkReceiver, SourceIntake } from './source-intake.js';
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
export interface MqttEventSourceOptions extends BrokerSourceOptions {
  /** `mqtt://host:1883` or `mqtts://host:8883`; `?topic_prefix=&client_id=` set those options. */
  url: string;
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
}

/**
 * The MQTT 5 side of the app: a persistent session (clean start off, session expiry) with a QoS 1
 * subscription, feeding each message to the receiver's pipeline one at a time. The PUBACK is sent
 * only once the receiver accepted the event, so an app that stops mid-message gets it again.
 */
export class MqttEventSource extends BrokerEventSource {
  private readonly url: URL;
  private readonly options: MqttEventSourceOptions;
  private readonly topic: string;
  private readonly clientId: string;
  /** @internal */
  protected readonly intake: SourceIntake;
  private client: MqttClient | undefined;

  constructor(options: MqttEventSourceOptions) {
    super();
    this.url = parseMqttUrl(options.url, 'url');
    checkReceiver(options.receiver);
    const fromUrl = mqttUrlOptions(this.url, 'url');
    const clientId = fromCodeOrUrl(options.clientId, fromUrl.clientId, 'clientId', 'client_id');
    if (typeof clientId !== 'string' || !/^[A-Za-z0-9_-]{1,64}$/.test(clientId)) {
      throw new ConfigError(
        'clientId',
        'must be 1-64 letters, digits, "-" or "_", stable across restarts (e.g. "app-1")',
      );
    }
    this.clientId = clientId;
    const prefix = mqttTopicPrefix(options.topicPrefix, fromUrl);
    const group = options.group === undefined ? undefined : checkPrefix(options.group, 'group', '.');
    this.topic = group === undefined ? `${prefix}/#` : `$share/${group}/${prefix}/#`;
    this.options = options;
    this.intake = new SourceIntake(options, {
      source: describeBrokerUrl(this.url),
      topic: this.topic,
    });
  }

  /** Connects and subscribes. @throws ConfigError with the fix when the broker cannot be reached. */
  async start(): Promise<void> {
    const connectTimeoutMs = this.intake.connectTimeoutMs();
    const client = mqtt.connect(connectUrl(this.url), this.clientOptions(connectTimeoutMs));
    client.handleMessage = (packet, callback) => {
      this.handle(packet, callback).catch((err: unknown) => {
        this.intake.logger.error('MQTT message handling failed; left unacknowledged', {
          error: errorText(err),
        });
        callback(err instanceof Error ? err : new Error(String(err)));
      });
    };
    watchMqttConnection(client, this.clientId, this.intake.logger, SOURCE_FIX);
    watchSessionKept(client, this.intake.logger);
    client.on('error', (err) => this.intake.logger.warn('MQTT client error', { error: errorText(err) }));
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
    this.intake.logger.info('MQTT event source subscribed');
  }

  /**
   * Stops: the message in progress is left unacknowledged (the broker redelivers it to this
   * session later), the connection closes and the session stays on the broker.
   */
  async close(): Promise<void> {
    this.intake.stop();
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
    const verdict = await this.intake.offer(headers, body);
    if (verdict === 'stop') return callback(new Error('event source closing: message left unacknowledged'));
    this.intake.count(verdict);
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
      ...brokerCredentials(options, url),
      ...(options.tls ?? {}),
    };
  }
}
