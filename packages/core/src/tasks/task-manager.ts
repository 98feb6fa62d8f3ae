import { type SpanContext } from '@opentelemetry/api';
import { type Clock } from '../clock/clock.port.js';
import { type EventSink } from '../events/event.types.js';
import { type Logger } from '../logging/logger.js';
import { type TaskState } from '../models/schema.js';
import { type TaskEvent } from '../models/task-event.model.js';
import { type TaskInfo } from '../models/task-info.model.js';
import { recordCancelRequested, spanContextOf, startTaskTrace } from '../telemetry/task-telemetry.js';
import { type TriggerRegistry } from '../triggers/trigger.registry.js';
import { validateTriggers } from '../triggers/trigger.validation.js';
import { type Trigger } from '../triggers/trigger.types.js';
import { ManagedTaskContext, type TaskHost } from './task-context.js';
import { errorMessage } from './task-json.util.js';
import { TaskLifecycle } from './task-lifecycle.js';
import { TaskCancelledError, TaskManagerClosedError } from './task.error.js';
import { newTaskId, taskIdPrefix } from './task-id.js';
import { deepFreeze } from './task-json.util.js';
import { freezeOrigin } from './task-origin.js';
import { resolveTaskManagerOptions, type TaskManagerOptions } from './task-manager.options.js';
import { TaskRecord } from './task-record.js';
import { awaitCancelledBody } from './task-outcome.js';
import { waitAtMost } from '../support/deadline.js';
import { ManagedTaskControl, type TaskControl } from './task-control.js';
import { checkStartArguments, checkStates } from './task-arguments.js';
import { type StartTaskOptions, type TaskBody, type TaskListener } from './task.types.js';

/** The triggers of every task started without any: one frozen array, not an empty one per task. */
const NO_TRIGGERS: readonly Trigger[] = Object.freeze([]);

/**
 * Runs the long-running work of a server's tools as tasks (spec §4.2): `start` returns at once,
 * the body runs in the background and its progress, fired triggers and outcome are pushed as
 * TaskEvents to the sink; `get`/`list`/`cancel` answer the reconciliation tools.
 */
export class TaskManager implements TaskHost {
  readonly serverName: string;
  readonly clock: Clock;
  readonly logger: Logger;
  readonly registry: TriggerRegistry;
  private readonly poster: EventSink;
  private readonly cancelGraceMs: number;
  private readonly cancelReplyMs: number;
  private readonly idPrefix: string;
  private readonly idRandom: () => string;
  private readonly replicaId: string | undefined;
  private readonly lifecycle: TaskLifecycle;
  private controlView: TaskControl | undefined;
  private closing: Promise<void> | undefined;

  constructor(options: TaskManagerOptions) {
    const resolved = resolveTaskManagerOptions(options);
    this.serverName = resolved.serverName;
    this.poster = resolved.poster;
    this.registry = resolved.triggers;
    this.cancelGraceMs = resolved.cancelGraceMs;
    this.cancelReplyMs = Math.min(resolved.cancelReplyMs, resolved.cancelGraceMs);
    this.clock = resolved.clock;
    this.logger = resolved.logger;
    this.lifecycle = new TaskLifecycle({
      serverName: this.serverName,
      poster: this.poster,
      clock: this.clock,
      logger: this.logger,
      maxFinishedRetained: resolved.maxFinishedRetained,
    });
    this.idPrefix = taskIdPrefix(this.serverName);
    this.idRandom = resolved.taskIdRandom;
    this.replicaId = resolved.replicaId;
  }

  /**
   * A new task id `<prefix>-<6 hex>` that no task of this manager has, for a caller that reserves it
   * (in a shared task store) before it passes it to {@link start} as `taskId`.
   */
  newTaskId(): string {
    const { tasks } = this.lifecycle;
    return newTaskId(this.idPrefix, (candidate) => tasks.has(candidate), this.idRandom);
  }

  /**
   * List and cancel this server's tasks — one, several (`cancelAll({ taskIds })`), all of a tool's
   * or all — returning what was cancelled; what `ctx.tasks` of tools and task bodies is built on.
   */
  get control(): TaskControl {
    return (this.controlView ??= new ManagedTaskControl(this));
  }

  /** Tasks in the `running` state. */
  get runningCount(): number {
    return this.lifecycle.running;
  }

  /**
   * Starts `body` as a task of `tool` and returns its TaskInfo (state `running`) at once; the body
   * starts on a later microtask, so the caller has the TaskInfo before any event.
   *
   * @throws TriggerValidationError when a trigger is malformed (nothing is started)
   * @throws TaskManagerClosedError after {@link TaskManager.aclose}
   */
  start(tool: string, body: TaskBody, options: StartTaskOptions = {}): TaskInfo {
    if (this.closing) throw new TaskManagerClosedError(this.serverName);
    const { triggers, estDurationS, origin, taskId } = options ?? {};
    const estimate = checkStartArguments(tool, body, estDurationS);
    const frozenOrigin = freezeOrigin(origin);
    const valid = validateTriggers(triggers, this.registry);
    const copies =
      valid.length === 0 ? NO_TRIGGERS : valid.map((t) => deepFreeze(structuredClone(t)) as Trigger);
    const { lifecycle } = this;
    const id = taskId === undefined ? this.newTaskId() : this.givenId(taskId);
    const record = new TaskRecord(id, this.serverName, tool, copies, estimate, this.clock.now());
    record.trace = startTaskTrace(id, tool, this.replicaId);
    const ctx = new ManagedTaskContext(this, lifecycle, record);
    // One async call (no promise chain, no closures): the body starts on a later microtask.
    record.settled = lifecycle.run(record, body, ctx);
    // Observers see `started` (with the origin) now, before the body can emit any event.
    const info = record.snapshot(); // one snapshot: the `started` observers' and the caller's
    lifecycle.started(record, frozenOrigin, info);
    return info;
  }

  /** @throws TypeError when a given `taskId` is not `<prefix>-<6 hex>` of this server or is known. */
  private givenId(taskId: string): string {
    const shape = `${this.idPrefix}-`;
    if (
      typeof taskId !== 'string' ||
      !taskId.startsWith(shape) ||
      !/^[0-9a-f]{6}$/.test(taskId.slice(shape.length))
    ) {
      throw new TypeError(
        `taskId: expected "${shape}" and 6 lowercase hex digits (from newTaskId()), got ${JSON.stringify(taskId)}`,
      );
    }
    if (this.lifecycle.tasks.has(taskId))
      throw new TypeError(`taskId: ${taskId} is already a task of this manager`);
    return taskId;
  }

  /** A snapshot of the task, or undefined if unknown (never started here, or evicted). */
  get(taskId: string): TaskInfo | undefined {
    return this.lifecycle.tasks.get(taskId)?.snapshot();
  }

  /**
   * The span context of the task's OpenTelemetry span (`task <tool>`), while the task is known here;
   * undefined for an unknown task or when no OpenTelemetry SDK was registered at its start. A server
   * links the spans of `tasks/get`, `tasks/cancel` and the like to it.
   */
  traceContextOf(taskId: string): SpanContext | undefined {
    return spanContextOf(this.lifecycle.tasks.get(taskId)?.trace);
  }

  /** Snapshots of the known tasks in creation order, optionally only those in `states`. */
  list(states?: readonly TaskState[] | null): TaskInfo[] {
    const wanted = states === undefined || states === null ? undefined : checkStates(states);
    const out: TaskInfo[] = [];
    for (const record of this.lifecycle.tasks.values())
      if (!wanted || wanted.has(record.state)) out.push(record.snapshot());
    return out;
  }

  /**
   * Cancels a running task: aborts its signal with a {@link TaskCancelledError} and marks it
   * `cancelled` at once (no terminal event; later events of its body are dropped). Answers as soon
   * as the body stopped, or after `cancelReplyMs` (default 250) if it has not: the returned TaskInfo
   * then says `body_running: true`, and keeps saying so — with `overran_grace: true` once
   * `cancelGraceMs` (default 5000) passed, and a warning logged — until the body exits.
   * Idempotent; a finished task is returned unchanged. With `{ settle: true }` it answers only once
   * the body stopped or the grace passed (what preemption needs before it starts another body).
   */
  async cancel(taskId: string, options: { settle?: boolean } = {}): Promise<TaskInfo | undefined> {
    const record = this.lifecycle.tasks.get(taskId);
    if (!record) return undefined;
    if (!record.finished) {
      recordCancelRequested(record.trace);
      this.lifecycle.markCancelled(record, new TaskCancelledError(record.id));
      record.cancelWait = awaitCancelledBody(record, this.clock, this.cancelGraceMs, this.logger);
    }
    if (record.cancelWait && !record.bodySettled) {
      if (options.settle) await record.cancelWait;
      else await waitAtMost(record.cancelWait, this.clock, this.cancelReplyMs);
    }
    return record.snapshot();
  }

  /**
   * Forgets a finished task whose body stopped: this manager no longer answers for it, so readers
   * fall back to the shared task store — where another replica's outcome stands (this replica was
   * fenced and a survivor failed the task). Returns false, keeping it, for a running task or one
   * whose body still runs.
   */
  forget(taskId: string): boolean {
    return this.lifecycle.forget(taskId);
  }

  /**
   * Resolves when the task's body has stopped (returned or thrown); at once for an unknown task or
   * a body that already stopped. Never rejects. `cancel` answers sooner: wait on this for the work
   * itself to be over (shutdown, session clean-up).
   */
  whenStopped(taskId: string): Promise<void> {
    const record = this.lifecycle.tasks.get(taskId);
    return !record || record.bodySettled ? Promise.resolve() : record.settled;
  }

  /**
   * The task-event channel: observes every change of this manager's tasks — `started` (with the
   * origin given to `start`, notified synchronously inside `start` before the body can run, so it
   * precedes every event of the task), each `event` the task emits, and `finished`. Listeners run
   * synchronously; one that throws is logged and the others still run. Returns the function that
   * stops observing.
   */
  onChange(listener: TaskListener): () => void {
    return this.lifecycle.listeners.add(listener);
  }

  /**
   * Posts an event of a task this manager does not run — a lost replica's task that the task
   * store's sweeper failed — to the sink, and tells the observers with an `event` change marked
   * `relayed` (its `task` is the given TaskInfo), so an event feed or a resource subscription on this
   * replica sees it as it sees any event. Returns the sink's durable write when it has one.
   */
  relay(event: TaskEvent, task: TaskInfo): void | Promise<void> {
    let written: void | Promise<void> = undefined;
    try {
      written = this.poster.post(event);
    } catch (error) {
      // As for a task's own events: a throwing sink loses this event, never the observers' view.
      this.logger.error(
        `the event sink threw on relayed ${event.type} of task ${event.task_id}; event lost`,
        {
          task_id: event.task_id,
          error: errorMessage(error),
        },
      );
    }
    this.lifecycle.listeners.notifyRelayed(event, task);
    return written;
  }

  /**
   * Shuts down: refuses new tasks, cancels every running task in parallel (each with the grace),
   * then, unless `flush: false`, closes the sink if it has an `aclose` method (an EventPoster
   * flushes its queue there). Idempotent.
   */
  aclose(options: { flush?: boolean } = {}): Promise<void> {
    this.closing ??= this.close(options.flush ?? true);
    return this.closing;
  }

  private async close(flush: boolean): Promise<void> {
    const pending = [...this.lifecycle.tasks.values()].filter(
      (r) => !r.finished || (r.cancelWait && !r.bodySettled),
    );
    // Shutdown waits the whole grace for each body (cancel itself answers sooner).
    await Promise.all(
      pending.map(async (r) => {
        await this.cancel(r.id);
        await r.cancelWait;
      }),
    );
    const sink = this.poster as EventSink & { aclose?: unknown };
    if (flush && typeof sink.aclose === 'function') await (sink.aclose as () => Promise<unknown>).call(sink);
  }
}
