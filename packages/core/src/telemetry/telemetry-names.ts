/**
 * The one list of the kit's telemetry names: the OpenTelemetry semantic-convention attributes the
 * kit sets, its own attributes (namespace `robot_mcp_kit.`) and its metric instruments. Every
 * package of the kit takes its names from here (docs/observability.md).
 */

/** Semantic-convention attributes the kit sets (stable or `gen-ai`/`messaging`, Development). */
export const SEMCONV_ATTRIBUTES = {
  errorType: 'error.type',
  genAiToolName: 'gen_ai.tool.name',
  httpResponseStatusCode: 'http.response.status_code',
  messagingSystem: 'messaging.system',
  messagingOperationType: 'messaging.operation.type',
  messagingOperationName: 'messaging.operation.name',
  messagingDestinationName: 'messaging.destination.name',
  messagingMessageId: 'messaging.message.id',
} as const;

/** The kit's own attributes, named in the semantic-convention style. */
export const KIT_ATTRIBUTES = {
  /** The task's id (`<prefix>-<6 hex>`). */
  taskId: 'robot_mcp_kit.task.id',
  /** The task's terminal state: `succeeded`, `failed` or `cancelled`. */
  taskState: 'robot_mcp_kit.task.state',
  /** The id of the replica that runs the task or holds the lease (scaled servers). */
  replicaId: 'robot_mcp_kit.replica.id',
  /** A TaskEvent's `type` (`progress`, `trigger_fired`, `task_done`, ...). */
  eventType: 'robot_mcp_kit.event.type',
  /** A TaskEvent's `seq`. */
  eventSeq: 'robot_mcp_kit.event.seq',
  /** A progress payload's numeric `percent`, when it has one. */
  progressPercent: 'robot_mcp_kit.progress.percent',
  /** A fired trigger's `type` (`timer`, `field_threshold`, ...). */
  triggerType: 'robot_mcp_kit.trigger.type',
  /** The delivery attempt, 1 for the first. */
  deliveryAttempt: 'robot_mcp_kit.delivery.attempt',
  /** What an attempt came to: `delivered`, `retry` or `gave_up`. */
  deliveryOutcome: 'robot_mcp_kit.delivery.outcome',
  /** Seconds until the next attempt, on an attempt that failed and will be retried. */
  deliveryRetryDelay: 'robot_mcp_kit.delivery.retry_delay',
  /** Why an event was given up or coalesced (`retry_cap`, `queue_full`, `coalesced`, ...). */
  dropReason: 'robot_mcp_kit.event.drop_reason',
  /** A lease change: `acquired`, `renewed`, `lost` or `released`. */
  leaseChange: 'robot_mcp_kit.lease.change',
} as const;

/** The kit's span names (the variable part, a tool name or an event type, follows a space). */
export const SPAN_NAMES = {
  /** `task <tool name>`: one task, from start to terminal state. */
  task: 'task',
  /** `send <event type>`: one delivery attempt of an event. */
  send: 'send',
  /** `process <event type>`: the receiver handling one delivered event. */
  process: 'process',
} as const;

/** The span events on a task span. */
export const TASK_SPAN_EVENTS = {
  progress: 'task.progress',
  triggerFired: 'task.trigger_fired',
  cancelRequested: 'task.cancel_requested',
} as const;

/** The kit's metric instruments: name, unit and description in one place. */
export const KIT_METRICS = {
  tasksRunning: {
    name: 'robot_mcp_kit.tasks.running',
    unit: '{task}',
    description: 'Tasks in the running state.',
  },
  taskDuration: {
    name: 'robot_mcp_kit.task.duration',
    unit: 's',
    description: 'Time from a task start to its terminal state, by tool and final state.',
  },
  eventsQueued: {
    name: 'robot_mcp_kit.events.queued',
    unit: '{event}',
    description: 'Events accepted by an event poster and not yet delivered or given up.',
  },
  deliveryAttempts: {
    name: 'robot_mcp_kit.delivery.attempts',
    unit: '{attempt}',
    description: 'Event delivery attempts (each POST or publish), by event type and outcome.',
  },
  deliveryFailures: {
    name: 'robot_mcp_kit.delivery.failures',
    unit: '{attempt}',
    description: 'Event delivery attempts that failed, by event type.',
  },
  eventsCoalesced: {
    name: 'robot_mcp_kit.events.coalesced',
    unit: '{event}',
    description: 'Progress events superseded under overload (their seqs ride on a later event).',
  },
  eventsDropped: {
    name: 'robot_mcp_kit.events.dropped',
    unit: '{event}',
    description: 'Events given up, by reason.',
  },
  replicaLeases: {
    name: 'robot_mcp_kit.replica.leases',
    unit: '{lease}',
    description: 'Task lease changes of a replica (acquired, renewed, lost, released), by change.',
  },
} as const;

/** The header (HTTP, NATS) or MQTT 5 user property names the W3C trace context travels in. */
export const TRACE_CONTEXT_FIELDS = ['traceparent', 'tracestate'] as const;
