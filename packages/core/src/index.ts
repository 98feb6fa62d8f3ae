import 'reflect-metadata';

// Models (spec §4.1)
export { SCHEMA_VERSION, TASK_STATES, EVENT_TYPES, isTerminalState } from './models/schema.js';
export type { TaskState, EventType } from './models/schema.js';
export { isJsonObject } from './models/json.types.js';
export { isoTime } from './models/iso-time.js';
export type { JsonObject } from './models/json.types.js';
export { TaskFailure } from './models/task-failure.model.js';
export type { TaskFailureInit } from './models/task-failure.model.js';
export { TaskEvent } from './models/task-event.model.js';
export type { TaskEventInit, TaskEventJson } from './models/task-event.model.js';
export { TaskInfo } from './models/task-info.model.js';
export type { TaskInfoInit, TaskInfoJson } from './models/task-info.model.js';
export { parseTaskEvent, parseTaskInfo, parseTaskFailure } from './models/parse.js';
export type { WireInput } from './models/parse.js';

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
export {
  StandardWebhooksSigner,
  STANDARD_WEBHOOK_HEADERS,
  standardWebhookKey,
  standardWebhookSignature,
  parseStandardWebhookSecrets,
} from './signing/standard-webhooks.js';
export type { StandardWebhooksOptions } from './signing/standard-webhooks.js';

// Time
export { systemClock } from './clock/clock.port.js';
export type { Clock, TimerHandle } from './clock/clock.port.js';
export { ManualClock } from './clock/manual.clock.js';

// Logging
export { asLogger, createLogger, LOG_LEVELS, silentLogger } from './logging/logger.js';
export type { Logger, LogMeta, LogLevel, LoggerOptions } from './logging/logger.js';
export { kitLogFormat, redactSecrets } from './logging/log.formats.js';
export type { LogFormat } from './logging/log.formats.js';
export { MemoryLogger } from './logging/memory.logger.js';
export type { LogEntry } from './logging/memory.logger.js';

// Rules: naming, reserved tool names, limits (shared by server, CLI and generator)
export {
  toSnakeCase,
  toPascalCase,
  toCamelCase,
  toKebabCase,
  suggestSnakeCase,
} from './rules/naming.rules.js';
export {
  TOOL_NAME_MAX_LENGTH,
  TOOL_NAME_PATTERN,
  KIT_TOOL_NAMES,
  RESERVED_TOOL_NAMES,
  TRIGGER_TYPE_MAX_LENGTH,
  TRIGGER_TYPE_PATTERN,
  isMcpToolName,
  isReservedToolName,
  isTriggerType,
  isScaffoldToolName,
} from './rules/name.rules.js';
export { MCP_TRANSPORTS, isMcpTransport } from './rules/config.rules.js';
export type { McpTransport } from './rules/config.rules.js';

// Triggers
export type { Trigger, TriggerEvaluator } from './triggers/trigger.types.js';

// Tasks (spec §4.2)
export type {
  TaskContext,
  TaskBody,
  StartTaskOptions,
  TaskOrigin,
  TaskChange,
  TaskListener,
} from './tasks/task.types.js';

// Events (spec §3.1, §4.3)
export type {
  EventSink,
  EventDelivery,
  DeliveryOutcome,
  EventTransport,
  PosterStats,
  FlushReport,
} from './events/event.types.js';

// Events — delivery (spec §3.1, §3.4, §4.3)
export { EventPoster } from './events/event-poster.js';
export type { EventPosterOptions, EventPosterEnvOptions } from './events/poster-options.js';
export type { OutboxStats } from './events/poster-outbox.js';
export type { EventOutbox, OutboxRecord } from './events/event-outbox.port.js';
export { InMemoryEventOutbox } from './events/in-memory-event.outbox.js';
export { checkSigningOptions, HttpEventTransport, parseRetryAfter } from './events/http-event.transport.js';
export type {
  HttpEventTlsOptions,
  HttpEventTransportOptions,
  HttpPhaseTimeouts,
} from './events/http-event.transport.js';
export { InMemoryEventTransport } from './events/in-memory-event.transport.js';
export type {
  DeliveryHandler,
  InMemoryEventTransportOptions,
  RecordedDelivery,
} from './events/in-memory-event.transport.js';
export { COALESCED_SEQS_KEY, readMarker } from './events/coalesce-marker.js';
export type { SeqRanges } from './events/coalesce-marker.js';
export { NoopEventTransport } from './events/noop-event.transport.js';
export { REDACTED, redactUrl, redactUrlCredentials, urlOrigin } from './rules/url.rules.js';
export {
  ALLOW_WEAK_SECRET_VARIABLE,
  EVENT_SECRET_FIX,
  MIN_EVENT_SECRET_BYTES,
  secretBytes,
  weakSecretAllowed,
  weakSecretReason,
} from './rules/secret.rules.js';
export {
  createEventTransportFromEnv,
  BrokerEventTransportLoader,
  BROKERS_PACKAGE,
  BROKER_SCHEMES,
} from './events/event-transport.factory.js';
export type {
  EventTransportEnvOptions,
  BrokerTransportRequest,
  BrokersLoader,
} from './events/event-transport.factory.js';

// Tasks and triggers (implementation)
export { TriggerRegistry } from './triggers/trigger.registry.js';
export {
  progressAboveTrigger,
  etaBelowTrigger,
  zoneEnteredTrigger,
  BUILTIN_TRIGGERS,
  BUILTIN_TRIGGER_TYPES,
} from './triggers/builtin-triggers.js';
export { validateTriggers, MAX_TRIGGERS, MAX_TRIGGER_BYTES } from './triggers/trigger.validation.js';
export {
  TaskError,
  TaskCancelledError,
  TaskManagerClosedError,
  TaskArgumentError,
} from './tasks/task.error.js';
export type { TaskErrorOptions } from './tasks/task.error.js';
export { TaskManager } from './tasks/task-manager.js';
export { ManagedTaskControl } from './tasks/task-control.js';
export type { CancelAllOptions, TaskControl, TaskListFilter } from './tasks/task-control.js';
export type { TaskManagerOptions } from './tasks/task-manager.options.js';
export { ACTUATOR_BUSY, ANONYMOUS_SCOPE, REPLICA_FENCED, REPLICA_LOST } from './tasks/task-store.port.js';
export type {
  ActuatorClaim,
  EstopLatch,
  EstopListener,
  TaskStore,
  StoredTask,
  LostTaskListener,
  CancelRequestListener,
} from './tasks/task-store.port.js';
export { InMemoryTaskStore, DEFAULT_IN_MEMORY_FINISHED_KEPT } from './tasks/in-memory-task.store.js';
export {
  FORBIDDEN_JSON_KEYS,
  jsonPrefix,
  jsonSafetyProblem,
  type JsonSafetyLimits,
  shortText,
  toFrozenJsonObject,
  type JsonCheck,
} from './tasks/task-json.util.js';
