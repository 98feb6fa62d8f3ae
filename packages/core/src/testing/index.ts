/**
 * @robot-mcp-kit/core/testing — test doubles at the kit's ports: a clock a test moves, a logger
 * that keeps its lines, and an event transport that records deliveries (and can fail them).
 *
 * @packageDocumentation
 * @module testing
 */
export { ManualClock } from '../clock/manual.clock.js';
export { MemoryLogger } from '../logging/memory.logger.js';
export type { LogEntry } from '../logging/memory.logger.js';
export { InMemoryEventTransport } from '../events/in-memory-event.transport.js';
export type {
  DeliveryHandler,
  InMemoryEventTransportOptions,
  RecordedDelivery,
} from '../events/in-memory-event.transport.js';
