/**
 * The contract of robot-mcp-kit (spec §3, §4): what an author, a receiver or a transport writer
 * needs. Everything else is on a subpath named by who needs it (see docs/architecture.md, Public API):
 * - `@robot-mcp-kit/core/testing`: test doubles: ManualClock, MemoryLogger, InMemoryEventTransport
 * - `@robot-mcp-kit/core/store`: task-store and outbox ports with their in-memory adapters
 * - `@robot-mcp-kit/core/transport`: what an event transport's author uses: the HTTP transport, signers
 * - `@robot-mcp-kit/core/host`: what hosts a TaskManager (the server): task changes, origins, control
 * - `@robot-mcp-kit/core/rules`: the rules the kit's packages share: names, limits, secrets, URLs
 * The names of every entry are pinned by test/architecture/public-api.exports.test.ts.
 *
 * @packageDocumentation
 * @module main
 */
import 'reflect-metadata';

// Models (spec §4.1)
export { SCHEMA_VERSION, TASK_STATES, EVENT_TYPES, isTerminalState } from './models/schema.js';
export type { TaskState, EventType } from './models/schema.js';
export { isJsonObject } from './models/json.types.js';
export type { JsonObject } from './models/json.types.js';
export { TaskFailure } from './models/task-failure.model.js';
export type { TaskFailureInit } from './models/task-failure.model.js';
export { TaskEvent } from './models/task-event.model.js';
export type { TaskEventInit, TaskEventJson } from './models/task-event.model.js';
export { TaskInfo } from './models/task-info.model.js';
export type { TaskInfoInit, TaskInfoJson } from './models/task-info.model.js';
export { parseTaskEvent, parseTaskInfo, parseTaskFailure } from './models/parse.js';

// Errors
export {
  RobotMcpKitError,
  ConfigError,
  ContractValidationError,
  TriggerValidationError,
} from './errors/kit.error.js';
export type { FieldIssue } from './errors/kit.error.js';

// Signing (spec §4.3)
export { sign, signatureHeader, verify, SIGNATURE_PREFIX } from './signing/signing.js';
export type { VerifyOptions } from './signing/signing.js';

// Time
export { systemClock } from './clock/clock.port.js';
export type { Clock, TimerHandle } from './clock/clock.port.js';

// Logging
export { createLogger, silentLogger } from './logging/logger.js';
export type { Logger, LogMeta, LogLevel, LoggerOptions } from './logging/logger.js';

// Triggers
export type { Trigger, TriggerEvaluator } from './triggers/trigger.types.js';
export { TriggerRegistry } from './triggers/trigger.registry.js';
export { progressAboveTrigger, etaBelowTrigger, zoneEnteredTrigger } from './triggers/builtin-triggers.js';

// Tasks (spec §4.2)
export type { TaskContext, TaskBody, StartTaskOptions } from './tasks/task.types.js';
export { TaskManager } from './tasks/task-manager.js';
export type { TaskManagerOptions } from './tasks/task-manager.options.js';
export { TaskError, TaskCancelledError } from './tasks/task.error.js';
export type { TaskErrorOptions } from './tasks/task.error.js';

// Events: the transport port and the poster (spec §3.1, §3.4, §4.3)
export type {
  EventDelivery,
  DeliveryOutcome,
  EventTransport,
  PosterStats,
  FlushReport,
} from './events/event.types.js';
export { EventPoster } from './events/event-poster.js';
export type { EventPosterOptions } from './events/poster-options.js';
export { createEventTransportFromEnv } from './events/event-transport.factory.js';
