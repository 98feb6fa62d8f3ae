/**
 * @robot-mcp-kit/core/host — for the package that hosts a TaskManager and an EventPoster behind a
 * protocol (@robot-mcp-kit/server): the task-change channel and a task's origin, the control
 * surface (list, cancel), the poster's sink and environment options, the logger adapters.
 *
 * @packageDocumentation
 * @module host
 */
export type { TaskOrigin, TaskChange, TaskListener } from '../tasks/task.types.js';
export type { CancelAllOptions, TaskControl, TaskListFilter } from '../tasks/task-control.js';
export { TaskManagerClosedError, TaskArgumentError } from '../tasks/task.error.js';
export type { EventSink } from '../events/event.types.js';
export type { EventPosterEnvOptions } from '../events/poster-options.js';
export { asLogger } from '../logging/logger.js';
export { kitLogFormat } from '../logging/log.formats.js';
export type { LogFormat } from '../logging/log.formats.js';
export { BUILTIN_TRIGGERS } from '../triggers/builtin-triggers.js';
