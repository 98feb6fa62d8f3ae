/**
 * Test helpers of `@robot-mcp-kit/server`: an official-SDK client connected to a bootstrapped
 * server in-process, and the core's in-memory adapters a test wires in instead of the real ones
 * (an event transport that records what would be posted, a manual clock, loggers).
 *
 * @packageDocumentation
 * @module testing
 */
export { connectTestClient, textOf } from './test-client.js';
export type { TestClient } from './test-client.js';
export { silentLogger } from '@robot-mcp-kit/core';
export { InMemoryEventTransport, ManualClock, MemoryLogger } from '@robot-mcp-kit/core/testing';
export type { RecordedDelivery, LogEntry } from '@robot-mcp-kit/core/testing';
