import { type BrokerTransportRequest, ConfigError, type EventTransport } from '@robot-mcp-kit/core';
import { type JetStreamStreamOptions } from './jetstream-stream.config.js';
import { JetStreamEventTransport } from './jetstream-event.transport.js';
import { MqttEventTransport } from './mqtt-event.transport.js';

export type { BrokerTransportRequest } from '@robot-mcp-kit/core';

const MQTT_PARAMS = ['topic_prefix', 'client_id'] as const;
const NATS_PARAMS = ['subject_prefix', 'stream', 'retention', 'max_age_s'] as const;

/**
 * Builds the transport for an `mqtt://`, `mqtts://` or `nats://` `RVC_CALLBACK_URL` (core's
 * factory calls this after loading the package). Query parameters tune it:
 * `mqtt://host:1883?topic_prefix=fleet&client_id=nav-1`,
 * `nats://host:4222?subject_prefix=fleet&stream=FLEET&retention=limits&max_age_s=86400`.
 * @throws ConfigError naming `RVC_CALLBACK_URL` for an unknown scheme or parameter.
 */
export function createBrokerEventTransport(request: BrokerTransportRequest): EventTransport {
  const url = new URL(request.url);
  const common = {
    secret: request.secret,
    serverName: request.serverName,
    timeoutMs: request.timeoutMs,
    clock: request.clock,
    logger: request.logger,
  };
  if (url.protocol === 'mqtt:' || url.protocol === 'mqtts:') {
    const params = queryParams(url, MQTT_PARAMS);
    return new MqttEventTransport({
      ...common,
      url: bareUrl(url),
      messageExpiryS: request.messageExpiryS,
      ...(params.topic_prefix !== undefined ? { topicPrefix: params.topic_prefix } : {}),
      ...(params.client_id !== undefined ? { clientId: params.client_id } : {}),
    });
  }
  if (url.protocol === 'nats:') {
    const params = queryParams(url, NATS_PARAMS);
    const stream: JetStreamStreamOptions = {
      ...(params.stream !== undefined ? { name: params.stream } : {}),
      ...(params.retention !== undefined
        ? { retention: params.retention as JetStreamStreamOptions['retention'] }
        : {}),
      ...(params.max_age_s !== undefined ? { maxAgeS: wholeSeconds(params.max_age_s, 'max_age_s') } : {}),
      duplicateWindowS: request.messageExpiryS,
    };
    return new JetStreamEventTransport({
      ...common,
      url: bareUrl(url),
      stream,
      ...(params.subject_prefix !== undefined ? { subjectPrefix: params.subject_prefix } : {}),
    });
  }
  throw new ConfigError(
    'RVC_CALLBACK_URL',
    `scheme ${url.protocol.replace(':', '')} is not a broker; use mqtt://, mqtts:// or nats://`,
  );
}

function queryParams<K extends string>(url: URL, allowed: readonly K[]): Partial<Record<K, string>> {
  const out: Partial<Record<K, string>> = {};
  for (const [name, value] of url.searchParams) {
    if (!(allowed as readonly string[]).includes(name)) {
      throw new ConfigError(
        'RVC_CALLBACK_URL',
        `unknown query parameter "${name}" for ${url.protocol.replace(':', '')}; use ${allowed.join(', ')}`,
      );
    }
    out[name as K] = value;
  }
  return out;
}

function wholeSeconds(value: string, name: string): number {
  if (!/^\d+$/.test(value) || Number(value) <= 0) {
    throw new ConfigError(
      'RVC_CALLBACK_URL',
      `${name} must be a positive whole number of seconds; got "${value}"`,
    );
  }
  return Number(value);
}

/** The URL with credentials but without query or fragment. */
function bareUrl(url: URL): string {
  const auth = url.username ? `${url.username}${url.password ? `:${url.password}` : ''}@` : '';
  return `${url.protocol}//${auth}${url.host}`;
}
