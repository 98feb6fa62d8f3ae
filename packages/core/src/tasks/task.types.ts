import { type JsonObject } from '../models/json.types.js';
import { type Logger } from '../logging/logger.js';
import { type TaskEvent } from '../models/task-event.model.js';
import { type TaskInfo } from '../models/task-info.model.js';
import { type TaskState } from '../models/schema.js';
import { type Trigger } from '../triggers/trigger.types.js';
import { type TaskControl } from './task-control.js';

/** Handed to every task body. */
export interface TaskContext {
  readonly taskId: string;
  readonly tool: string;
  /** The triggers the caller attached, as passed. */
  readonly triggers: readonly Trigger[];
  /** Aborted when the task is cancelled; pass it to anything that can be aborted. */
  readonly signal: AbortSignal;
  /**
   * Records the progress (readable in TaskInfo.progress), emits a `progress` event, then evaluates
   * the task's triggers with the registered evaluators and fires those that match.
   */
  progress(payload: JsonObject): Promise<void>;
  /** Emits `trigger_fired` `{trigger, ...extra}`, at most once per trigger unless `repeat: true`. */
  fireTrigger(trigger: Trigger, extra?: JsonObject): Promise<void>;
  /** Emits a `watch_event` (long-lived watcher tasks). */
  emit(payload: JsonObject): Promise<void>;
  /** Throws the cancellation reason if the task was cancelled (cooperative checkpoint). */
  throwIfCancelled(): void;
  /** Waits `ms` on the manager's clock; rejects at once when the task is cancelled. */
  sleep(ms: number): Promise<void>;
  /**
   * Lists and cancels this server's tasks (e.g. a new motion cancelling the previous one);
   * `cancelAll` never cancels the calling task itself.
   */
  readonly tasks: TaskControl;
  /** The server's logger for this task: every line carries `task_id` and `tool` (a winston child). */
  readonly logger: Logger;
}

/** The real work of a long-running tool. Returns the result object (`task_done {"result": ...}`). */
export type TaskBody = (ctx: TaskContext) => Promise<JsonObject>;

/**
 * Where a task comes from, as data: handed to `start` and carried (frozen) by the task's `started`
 * change, so observers learn who started it before any of its events. Not part of the TaskInfo.
 */
export interface TaskOrigin {
  /** The MCP session that started the task. */
  readonly sessionId?: string;
  /** The authenticated principal of that session (the token's client id). */
  readonly principal?: string;
  /**
   * Per-start data for observers, each under its own symbol (e.g. native tasks put the call's
   * progress token and TTL here). Values are data, not callbacks.
   */
  readonly tags?: ReadonlyMap<symbol, unknown>;
}

/** Options of {@link TaskManager.start}. */
export interface StartTaskOptions {
  triggers?: readonly unknown[] | null;
  estDurationS?: number | null;
  /** Who started the task; observers read it on the `started` change. */
  origin?: TaskOrigin | null;
  /**
   * The task's id, drawn with {@link TaskManager.newTaskId} and reserved elsewhere first (a shared
   * task store, so that no other replica hands it out). Default: a new id drawn now.
   */
  taskId?: string;
}

/** A change to a task, for observers (native MCP tasks, resources, event feeds). */
export interface TaskChange {
  /** `started`; `event` when the task emitted an event; `finished` when it reached a terminal state. */
  readonly kind: 'started' | 'event' | 'finished';
  readonly taskId: string;
  /** The task's state when the change happened. */
  readonly state: TaskState;
  /**
   * A TaskInfo snapshot, built on first access (most listeners need only `taskId` and `state`, and a
   * snapshot per event is the largest allocation of a busy server). Read it synchronously.
   */
  readonly task: TaskInfo;
  readonly event?: TaskEvent;
  /**
   * An event of a task this manager does not run, relayed by `TaskManager.relay` (a lost
   * replica's task failed by the task store's sweeper); `task` is its stored TaskInfo.
   */
  readonly relayed?: true;
  /** On `started` only: the origin given to `start` (frozen), if any. */
  readonly origin?: TaskOrigin;
}

export type TaskListener = (change: TaskChange) => void;

export type { TaskState };
