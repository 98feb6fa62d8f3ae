import { type Clock, ConfigError, type Logger, systemClock } from '@robot-mcp-kit/core';
import { withTimeout } from '@robot-mcp-kit/core/support';
import mqtt, { type IClientOptions, type MqttClient } from 'mqtt';
import { type BrokerCommonOptions, describeBrokerUrl } from '../shared/broker-options.js';
import { EVENT_CONTENT_TYPE, errorText, eventAddress, type SignedMessage } from '../shared/signed-message.js';
import {
  BrokerEventTransport,
  BrokerPublisher,
  type TransportSettings,
  transportSettings,
} from '../shared/broker-publisher.js';
import {
  brokerCredentials,
  connectUrl,
  fromCodeOrUrl,
  mqttTopicPrefix,
  mqttUrlOptions,
  parseBrokerUrl,
} from '../shared/broker-url.js';
import { watchMqttConnection } from '../shared/mqtt-connection.watch.js';
const TRANSPORT_FIX =
  'Give each robot its own client id: drop client_id from RVC_CALLBACK_URL (the default, ' +
  'rmk-<server>-<random>, is new for each process) or set a different one on each robot.';

/** Options of {@link MqttEventTransport}. */
export interface MqttEventTransportOptions extends BrokerCommonOptions {
  /** `mqtt://host:1883` or `mqtts://host:8883`; user info in the URL is used as credentials. */
  url: string;
  /** First topic levels (default `rmk`): topics are `<prefix>/<server>/<task_id>/<type>`. */
  topicPrefix?: string;
  /** Default `rmk-<server>-<random>`, new for each process. */
  clientId?: string;
  /** MQTT 5 message expiry in seconds: the poster's retry cap (default 600). */
  messageExpiryS?: number;
  clock?: Clock;
  logger?: Logger;
}

/**
 * The MQTT 5 adapter of the `EventTransport` port: one QoS 1 PUBLISH per attempt, the event's
 * exact JSON bytes as payload, `X-RVC-*` user properties signed as over HTTP. An attempt counts
 * as delivered when the broker's PUBACK arrives. It never retries by itself (the poster owns
 * the schedule and the per-task order) and never throws.
 */
export class MqttEventTransport extends BrokerEventTransport<MqttClient> {
  readonly description: string;
  /**
   * Publishes awaiting their PUBACK at once, for the poster: Mosquitto's default in-flight window
   * (`max_inflight_messages` 20); one connection carries them all.
   */
  readonly maxInFlight = 20;
  private readonly url: URL;
  private readonly options: MqttEventTransportOptions;
  private readonly prefix: string;
  private readonly clientId: string | undefined;
  private readonly expiryS: number;
  private readonly settings: TransportSettings;
  /** @internal */
  protected readonly publisher: BrokerPublisher<MqttClient>;

  constructor(options: MqttEventTransportOptions) {
    super();
    this.url = parseMqttUrl(options.url, 'url');
    this.options = options;
    const fromUrl = mqttUrlOptions(this.url, 'url');
    this.prefix = mqttTopicPrefix(options.topicPrefix, fromUrl);
    this.clientId = fromCodeOrUrl(options.clientId, fromUrl.clientId, 'clientId', 'client_id');
    this.description = describeBrokerUrl(this.url);
    this.settings = transportSettings(options, this.description);
    const expiryS = options.messageExpiryS ?? 600;
    if (!Number.isInteger(expiryS) || expiryS <= 0 || expiryS > 0xffffffff) {
      throw new ConfigError(
        'messageExpiryS',
        `must be a positive whole number of seconds, e.g. 600; got ${expiryS}`,
      );
    }
    this.expiryS = expiryS;
    this.publisher = new BrokerPublisher<MqttClient>(
      {
        system: 'mqtt',
        notLive: `MQTT broker ${this.description} not connected`,
        connect: () => this.connect(),
        isLive: (client) => client.connected,
        destination: (event) => this.topicOf(event),
        publish: (client, topic, message) => this.publish(client, topic, message),
        disconnect: (client) => client.endAsync(true).catch(() => undefined),
      },
      options,
      this.settings,
    );
  }

  /** The topic of an event: `<prefix>/<server>/<task_id>/<type>`, each level percent-encoded. */
  topicOf(event: { server: string; task_id: string; type: string }): string {
    return eventAddress(this.prefix, '/', event);
  }

  private async publish(
    client: MqttClient,
    topic: string,
    { payload, headers }: SignedMessage,
  ): Promise<undefined> {
    const { timeoutMs } = this.settings;
    await withTimeout(
      client.publishAsync(topic, payload, {
        qos: 1,
        properties: {
          contentType: EVENT_CONTENT_TYPE,
          payloadFormatIndicator: true,
          messageExpiryInterval: this.expiryS,
          // the signed X-RVC-* headers and, when traced, traceparent/tracestate (MQTT 5)
          userProperties: { ...headers },
        },
      }),
      systemClock, // real time, whatever clock signs the events
      timeoutMs,
      `no PUBACK within ${timeoutMs} ms`,
    );
    return undefined;
  }

  private async connect(): Promise<MqttClient> {
    const { logger, connectTimeoutMs } = this.settings;
    const options = this.clientOptions();
    const client = mqtt.connect(connectUrl(this.url), options);
    watchMqttConnection(client, String(options.clientId), logger, TRANSPORT_FIX);
    client.on('error', (err) => logger.warn('MQTT client error', { error: errorText(err) }));
    client.on('connect', () => logger.info('MQTT broker connected'));
    try {
      await waitForConnect(client, connectTimeoutMs);
    } catch (err) {
      await client.endAsync(true).catch(() => undefined);
      throw new ConfigError(
        'RVC_CALLBACK_URL',
        `cannot connect to the MQTT broker at ${this.description} (${errorText(err)}); ` +
          'start the broker (e.g. `mosquitto -d`), or fix the host, port, credentials or TLS settings',
      );
    }
    return client;
  }

  private clientOptions(): IClientOptions {
    const { options, url } = this;
    const random = Math.random().toString(16).slice(2, 10);
    return {
      protocolVersion: 5,
      clientId: this.clientId ?? `rmk-${options.serverName}-${random}`,
      clean: true,
      reconnectPeriod: 1_000,
      connectTimeout: this.settings.connectTimeoutMs,
      ...brokerCredentials(options, url),
      ...(options.tls ?? {}),
    };
  }
}

/** Resolves on the first CONNACK; rejects on the first error or close, or after `timeoutMs`. */
export function waitForConnect(client: MqttClient, timeoutMs: number): Promise<void> {
  return new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => finish(new Error(`no CONNACK within ${timeoutMs} ms`)), timeoutMs);
    const onConnect = (): void => finish();
    const onError = (err: Error): void => finish(err);
    const onClose = (): void => finish(new Error('connection closed (broker down or refused)'));
    function finish(err?: Error): void {
      clearTimeout(timer);
      client.off('connect', onConnect).off('error', onError).off('close', onClose);
      if (err) reject(err);
      else resolve();
    }
    client.on('connect', onConnect).on('error', onError).on('close', onClose);
  });
}

/** @throws ConfigError naming `variable` unless `value` is an mqtt:// or mqtts:// URL. */
export function parseMqttUrl(value: unknown, variable: string): URL {
  const example = 'e.g. mqtt://127.0.0.1:1883 or mqtts://broker.local:8883';
  return parseBrokerUrl(value, variable, ['mqtt:', 'mqtts:'], example);
}
