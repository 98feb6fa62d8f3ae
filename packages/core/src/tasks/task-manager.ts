import { type Clock } from '../clock/clock.port.js';
import { type EventSink } from '../events/event.types.js';
import { type Logger } from '../logging/logger.js';
import { type JsonObject } from '../models/json.types.js';
import { type EventType, type TaskState } from '../models/schema.js';
import { TaskEvent } from '../models/task-event.model.js';
import { type TaskFailure } from '../models/task-failure.model.js';
import { type TaskInfo } from '../models/task-info.model.js';
import { type TriggerRegistry } from '../triggers/trigger.registry.js';
import { validateTriggers } from '../triggers/trigger.validation.js';
import { type Trigger } from '../triggers/trigger.types.js';
import { ManagedTaskContext, type TaskHost } from './task-context.js';
import { TaskCancelledError, TaskError, TaskManagerClosedError } from './task.error.js';
import { newEventId, newTaskId, taskIdPrefix } from './task-id.js';
import { deepFreeze, errorMessage, toFrozenJsonObject } from './task-json.util.js';
import { resolveTaskManagerOptions, type TaskManagerOptions } from './task-manager.options.js';
import { TaskRecord } from './task-record.js';
import { awaitCancelledBody, internalFailure, waitAtMost } from './task-outcome.js';
import { ManagedTaskControl, type TaskControl } from './task-control.js';
import { checkStartArguments, checkStates } from './task-arguments.js';
import { FinishedQueue } from './task-retention.js';
import { TaskListeners } from './task-listeners.js';
import { type StartTaskOptions, type TaskBody, type TaskChange, type TaskListener } from './task.types.js';

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
  private readonly maxFinishedRetained: number;
  private readonly cancelGraceMs: number;
  private readonly cancelReplyMs: number;
  private readonly idPrefix: string;
  private readonly tasks = new Map<string, TaskRecord>();
  private readonly finishedQueue = new FinishedQueue();
  private readonly listeners: TaskListeners;
  private running = 0;
  private controlView: TaskControl | undefined;
  private closing: Promise<void> | undefined;

  constructor(options: TaskManagerOptions) {
    const resolved = resolveTaskManagerOptions(options);
    this.serverName = resolved.serverName;
    this.poster = resolved.poster;
    this.registry = resolved.triggers;
    this.maxFinishedRetained = resolved.maxFinishedRetained;
    this.cancelGraceMs = resolved.cancelGraceMs;
    this.cancelReplyMs = Math.min(resolved.cancelReplyMs, resolved.cancelGraceMs);
    this.clock = resolved.clock;
    this.logger = resolved.logger;
    this.listeners = new TaskListeners(this.logger);
    this.idPrefix = taskIdPrefix(this.serverName);
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
    return this.running;
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
    const { triggers, estDurationS } = options ?? {};
    const estimate = checkStartArguments(tool, body, estDurationS);
    const valid = validateTriggers(triggers, this.registry);
    const copies = valid.map((t) => deepFreeze(structuredClone(t)) as Trigger);
    const id = newTaskId(this.idPrefix, (candidate) => this.tasks.has(candidate));
    const record = new TaskRecord(id, this.serverName, tool, copies, estimate, this.clock.now());
    this.tasks.set(id, record);
    this.running += 1;
    const ctx = new ManagedTaskContext(this, record);
    record.settled = Promise.resolve()
      .then(() => this.run(record, body, ctx))
      .catch((error: unknown) => {
        this.logger.error('task bookkeeping failed', { task_id: id, error: errorMessage(error) });
        // A hostile outcome (a thrown Proxy, a throwing getter) must not leave the task running.
        this.bodyStopped(record);
        if (record.finished) return;
        const why = `the task body of "${tool}" threw a value that cannot be inspected (${errorMessage(error)})`;
        this.finish(record, 'failed', internalFailure(why));
      });
    this.notify('started', record);
    return record.snapshot();
  }

  /** A snapshot of the task, or undefined if unknown (never started here, or evicted). */
  get(taskId: string): TaskInfo | undefined {
    return this.tasks.get(taskId)?.snapshot();
  }

  /** Snapshots of the known tasks in creation order, optionally only those in `states`. */
  list(states?: readonly TaskState[] | null): TaskInfo[] {
    const wanted = states === undefined || states === null ? undefined : checkStates(states);
    const out: TaskInfo[] = [];
    for (const record of this.tasks.values())
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
    const record = this.tasks.get(taskId);
    if (!record) return undefined;
    if (!record.finished) {
      this.markCancelled(record, new TaskCancelledError(record.id));
      record.cancelWait = awaitCancelledBody(record, this.clock, this.cancelGraceMs, this.logger);
    }
    if (record.cancelWait && !record.bodySettled) {
      if (options.settle) await record.cancelWait;
      else await waitAtMost(record.cancelWait, this.clock, this.cancelReplyMs);
    }
    return record.snapshot();
  }

  /**
   * Resolves when the task's body has stopped (returned or thrown); at once for an unknown task or
   * a body that already stopped. Never rejects. `cancel` answers sooner: wait on this for the work
   * itself to be over (shutdown, session clean-up).
   */
  whenStopped(taskId: string): Promise<void> {
    const record = this.tasks.get(taskId);
    return !record || record.bodySettled ? Promise.resolve() : record.settled;
  }

  /** Observes task changes; returns the function that stops observing. */
  onChange(listener: TaskListener): () => void {
    return this.listeners.add(listener);
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
    const pending = [...this.tasks.values()].filter((r) => !r.finished || (r.cancelWait && !r.bodySettled));
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

  /**
   * @internal {@link TaskHost}: emits one event of `record` to the sink and the listeners; returns
   * the sink's durable write when it has one (a poster with an outbox), to await.
   */
  emitEvent(
    record: TaskRecord,
    type: EventType,
    payload: JsonObject,
    terminal = false,
  ): void | Promise<void> {
    if (!terminal && this.ignoreIfFinished(record, `emit ${type}`)) return undefined;
    const now = this.clock.now();
    record.seq += 1;
    record.updatedAtMs = now;
    const event = TaskEvent.create({
      event_id: newEventId(),
      task_id: record.id,
      server: this.serverName,
      tool: record.tool,
      type,
      seq: record.seq,
      ts: new Date(now),
      payload,
    });
    let written: void | Promise<void> = undefined;
    try {
      written = this.poster.post(event);
    } catch (error) {
      this.logger.error(`the event sink threw on ${type} of task ${record.id}; event lost`, {
        task_id: record.id,
        error: errorMessage(error),
      });
    }
    this.notify('event', record, event);
    return written;
  }

  /** @internal {@link TaskHost} */
  ignoreIfFinished(record: TaskRecord, what: string): boolean {
    if (!record.finished) return false;
    this.logger.debug(`task ${record.id} is ${record.state}; ignoring its attempt to ${what}`, {
      task_id: record.id,
      tool: record.tool,
    });
    return true;
  }

  private async run(record: TaskRecord, body: TaskBody, ctx: ManagedTaskContext): Promise<void> {
    if (record.finished) {
      record.bodySettled = true; // cancelled before it started: the body never runs
      return;
    }
    let value: unknown;
    let written: void | Promise<void>;
    try {
      value = await body(ctx);
    } catch (error) {
      this.bodyStopped(record);
      written = this.onBodyError(record, error);
      if (written) await written; // the task ends once its terminal event is durable
      return;
    }
    this.bodyStopped(record);
    written = this.onBodyResult(record, value);
    if (written) await written;
  }

  /** Records that the body settled; a cancelled task's TaskInfo stops saying `body_running`. */
  private bodyStopped(record: TaskRecord): void {
    if (record.bodySettled) return;
    const wasRunning = record.bodyRunningAfterCancel;
    record.bodySettled = true;
    if (!wasRunning) return;
    record.updatedAtMs = this.clock.now();
    this.logger.info(`task ${record.id} (${record.tool}): its body stopped after cancellation`, {
      task_id: record.id,
      tool: record.tool,
      overran_grace: record.overranGrace,
    });
  }

  private onBodyResult(record: TaskRecord, value: unknown): void | Promise<void> {
    if (this.ignoreIfFinished(record, 'return a result')) return;
    const check = toFrozenJsonObject(value);
    if (!check.ok) {
      const message =
        `the task body of "${record.tool}" returned ${check.problem.replace(/^got /, '')}; ` +
        'a task body must return a plain JSON object such as { arrived: true } (it becomes task_done {"result": ...})';
      this.logger.error(`task ${record.id} failed: ${message}`, { task_id: record.id, tool: record.tool });
      return this.finish(record, 'failed', internalFailure(message));
    }
    record.result = check.value;
    return this.finish(record, 'succeeded');
  }

  private onBodyError(record: TaskRecord, error: unknown): void | Promise<void> {
    if (this.ignoreIfFinished(record, `fail (${errorMessage(error)})`)) return;
    if (error instanceof TaskError) {
      return this.finish(record, 'failed', error.toFailure());
    } else if (error instanceof TaskCancelledError) {
      this.markCancelled(record, error);
    } else {
      const message = errorMessage(error);
      this.logger.error(`task ${record.id} (${record.tool}) failed with an unexpected error: ${message}`, {
        task_id: record.id,
        tool: record.tool,
        error: message,
        stack: error instanceof Error ? error.stack : undefined,
      });
      return this.finish(record, 'failed', internalFailure(message));
    }
    return undefined;
  }

  /** Moves a running task to succeeded/failed and emits its terminal event; returns its durable write. */
  private finish(
    record: TaskRecord,
    state: 'succeeded' | 'failed',
    failure?: TaskFailure,
  ): void | Promise<void> {
    record.state = state;
    record.updatedAtMs = this.clock.now();
    this.running -= 1;
    let written: void | Promise<void>;
    if (state === 'succeeded') {
      written = this.emitEvent(record, 'task_done', deepFreeze({ result: record.result }), true);
    } else {
      record.failure = failure ?? null;
      written = this.emitEvent(
        record,
        'task_failed',
        deepFreeze(JSON.parse(JSON.stringify(failure)) as JsonObject),
        true,
      );
    }
    this.finished(record);
    return written;
  }

  private markCancelled(record: TaskRecord, reason: TaskCancelledError): void {
    record.state = 'cancelled';
    record.updatedAtMs = this.clock.now();
    this.running -= 1;
    record.cancel(reason);
    this.logger.info(`task ${record.id} (${record.tool}) cancelled`, {
      task_id: record.id,
      tool: record.tool,
    });
    this.finished(record);
  }

  private finished(record: TaskRecord): void {
    this.notify('finished', record);
    this.finishedQueue.push(record.id);
    while (this.finishedQueue.size > this.maxFinishedRetained) {
      const evicted = this.finishedQueue.shift();
      if (evicted !== undefined) this.tasks.delete(evicted);
    }
  }

  private notify(kind: TaskChange['kind'], record: TaskRecord, event?: TaskEvent): void {
    this.listeners.notify(kind, record, event);
  }
}
