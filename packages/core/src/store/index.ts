/**
 * @robot-mcp-kit/core/store — for whoever writes a task store or an event outbox (the Redis
 * adapters of @robot-mcp-kit/redis, or your own): the ports, their constants and the in-memory
 * adapters a single process uses.
 *
 * @packageDocumentation
 * @module store
 */
export { ACTUATOR_BUSY, ANONYMOUS_SCOPE, REPLICA_FENCED, REPLICA_LOST } from '../tasks/task-store.port.js';
export type {
  ActuatorClaim,
  CancelTarget,
  CarriedOutcome,
  CarriedTaskWrite,
  EstopLatch,
  EstopListener,
  TaskStore,
  StoredTask,
  LostTaskListener,
  CancelRequestListener,
} from '../tasks/task-store.port.js';
export { InMemoryTaskStore } from '../tasks/in-memory-task.store.js';
export type { EventOutbox, OutboxRecord } from '../events/event-outbox.port.js';
export type { OutboxStats } from '../events/poster-outbox.js';
export { InMemoryEventOutbox } from '../events/in-memory-event.outbox.js';
