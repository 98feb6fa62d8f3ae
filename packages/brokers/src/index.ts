// MQTT 5 and NATS JetStream for robot-mcp-kit fleets: event transports (robot side) and
// event sources (app side) feeding the receiver's verify → dedupe → gap → onEvent pipeline.

export { MqttEventTransport } from './transports/mqtt-event.transport.js';
export type { MqttEventTransportOptions } from './transports/mqtt-event.transport.js';
export { JetStreamEventTransport } from './transports/jetstream-event.transport.js';
export type { JetStreamEventTransportOptions } from './transports/jetstream-event.transport.js';
export type { JetStreamStreamOptions } from './transports/jetstream-stream.config.js';
export { createBrokerEventTransport } from './transports/broker-transport.factory.js';
export type { BrokerTransportRequest } from './transports/broker-transport.factory.js';

export { probeBroker } from './probe/broker.probe.js';
export { MEMORY_STREAM_WARNING } from './transports/jetstream-stream.config.js';
export type { BrokerProbe } from './probe/broker.probe.js';

export { MqttEventSource } from './sources/mqtt-event.source.js';
export type { MqttEventSourceOptions } from './sources/mqtt-event.source.js';
export type { SourceStats } from './sources/source-intake.js';
export { JetStreamEventSource } from './sources/jetstream-event.source.js';
export type { JetStreamEventSourceOptions } from './sources/jetstream-event.source.js';
export type { EventIntake } from './sources/event-intake.js';

export { BROKER_HEADERS, EVENT_CONTENT_TYPE, signMessage } from './shared/signed-message.js';
export type { SignedMessage } from './shared/signed-message.js';
export type { BrokerTlsOptions, BrokerCommonOptions } from './shared/broker-options.js';
