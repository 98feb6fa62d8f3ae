import { type EventTransport } from '@robot-mcp-kit/core';
import { type BrokerTransportRequest } from '@robot-mcp-kit/core/transport';
import { mqttUrlOptions, natsUrlOptions, parseBrokerUrl } from '../shared/broker-url.js';
import { JetStreamEventTransport } from './jetstream-event.transport.js';
import { MqttEventTransport } from './mqtt-event.transport.js';

export type { BrokerTransportRequest } from '@robot-mcp-kit/core/transport';

const VARIABLE = 'RVC_CALLBACK_URL';

/**
 * Builds the transport for an `mqtt://`, `mqtts://` or `nats://` `RVC_CALLBACK_URL` (core's
 * factory calls this after loading the package). Query parameters tune it, read by the same
 * parser as the sources': `mqtt://host:1883?topic_prefix=fleet&client_id=nav-1`,
 * `nats://host:4222?subject_prefix=fleet&stream=FLEET&retention=limits&max_age_s=86400`.
 * @throws ConfigError naming `RVC_CALLBACK_URL` for an unknown scheme or parameter.
 */
export function createBrokerEventTransport(request: BrokerTransportRequest): EventTransport {
  const example = 'e.g. mqtt://127.0.0.1:1883 or nats://127.0.0.1:4222';
  const url = parseBrokerUrl(request.url, VARIABLE, ['mqtt:', 'mqtts:', 'nats:'], example);
  const common = {
    url: request.url,
    secret: request.secret,
    serverName: request.serverName,
    timeoutMs: request.timeoutMs,
    clock: request.clock,
    logger: request.logger,
  };
  if (url.protocol === 'nats:') {
    natsUrlOptions(url, VARIABLE);
    return new JetStreamEventTransport({
      ...common,
      stream: { duplicateWindowS: request.messageExpiryS },
    });
  }
  mqttUrlOptions(url, VARIABLE);
  return new MqttEventTransport({ ...common, messageExpiryS: request.messageExpiryS });
}
