/**
 * @robot-mcp-kit/core/transport — for authors of event transports and event sources: the HTTP
 * transport and its options, the Standard Webhooks signer, the coalesce marker a receiver reads,
 * and how createEventTransportFromEnv hands a broker URL to @robot-mcp-kit/brokers.
 *
 * @packageDocumentation
 * @module transport
 */
export { checkSigningOptions, HttpEventTransport } from '../events/http-event.transport.js';
export type {
  HttpEventTlsOptions,
  HttpEventTransportOptions,
  HttpPhaseTimeouts,
} from '../events/http-event.transport.js';
export { StandardWebhooksSigner } from '../signing/standard-webhooks.js';
export type { StandardWebhooksOptions } from '../signing/standard-webhooks.js';
export { readMarker } from '../events/coalesce-marker.js';
export type { SeqRanges } from '../events/coalesce-marker.js';
export type { WireInput } from '../models/parse.js';
export { BROKERS_PACKAGE, BROKER_SCHEMES } from '../events/event-transport.factory.js';
export type {
  EventTransportEnvOptions,
  BrokerTransportRequest,
  BrokersLoader,
} from '../events/event-transport.factory.js';
