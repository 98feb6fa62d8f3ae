import { context } from '@opentelemetry/api';
import { type Clock } from '../clock/clock.port.js';
import { type EventSink } from '../events/event.types.js';
import { type Logger } from '../logging/logger.js';
import { type JsonObject } from '../models/json.types.js';
import { type EventType } from '../models/schema.js';
import { TaskEvent } from '../models/task-event.model.js';
import { type TaskFailure } from '../models/task-failure.model.js';
import { TaskCancelledError, TaskError } from './task.error.js';
import { newEventId } from './task-id.js';
import { deepFreeze, errorMessage, toFrozenJsonObject } from './task-json.util.js';
import { TaskListeners } from './task-listeners.js';
import { internalFailure } from './task-outcome.js';
import { type TaskRecord } from './task-record.js';
import { Fifo } from '../events/fifo.js';
import { type TaskInfo } from '../models/task-info.model.js';
import {
  countTaskEnded,
  countTaskStarted,
  endTaskTrace,
  recordTaskEvent,
} from '../telemetry/task-telemetry.js';
import { type TaskBody, type TaskContext, type TaskOrigin } from './task.types.js';

/** Awaited first by {@link TaskLifecycle.run}: one microtask, shared by every task. */
const BEFORE_BODY: Promise<void> = Promise.resolve();

/** What a {@link TaskLifecycle} needs. */
export interface TaskLifecycleParts {
  readonly serverName: string;
  readonly poster: EventSink;
  readonly clock: Clock;
  readonly logger: Logger;
  readonly maxFinishedRetained: number;
}

/**
 * The state machine of a TaskManager's tasks: the task table, the running count, event emission to
 * the sink and the observers, and the moves to a terminal state. Internal (not exported from the
 * package): it is the private port a task context talks to its manager through, so none of this is
 * part of the TaskManager's public API.
 */
export class TaskLifecycle {
  readonly tasks = new Map<string, TaskRecord>();
  readonly listeners: TaskListeners;
  running = 0;
  /** Finished task ids, oldest first: the oldest go beyond `maxFinishedRetained`. */
  private readonly finishedQueue = new Fifo<string>();

  constructor(private readonly parts: TaskLifecycleParts) {
    this.listeners = new TaskListeners(parts.logger);
  }

  /** A new running task: counted, and observers told (`started`, with its origin and `info`). */
  started(record: TaskRecord, origin: TaskOrigin | undefined, info: TaskInfo): void {
    this.tasks.set(record.id, record);
    this.running += 1;
    countTaskStarted(record.tool);
    this.listeners.notify('started', record, undefined, origin, info);
  }

  /**
   * Emits one event of `record` to the sink and the observers (ignored, logged, once the task is
   * finished unless `terminal`); returns the sink's durable write when it has one, to await.
   */
  emit(record: TaskRecord, type: EventType, payload: JsonObject, terminal = false): void | Promise<void> {
    if (!terminal && this.ignoreIfFinished(record, `emit ${type}`)) return undefined;
    const { clock, poster, logger, serverName } = this.parts;
    const now = clock.now();
    record.seq += 1;
    record.updatedAtMs = now;
    const event = TaskEvent.create({
      event_id: newEventId(),
      task_id: record.id,
      server: serverName,
      tool: record.tool,
      type,
      seq: record.seq,
      ts: new Date(now),
      payload,
    });
    let written: void | Promise<void> = undefined;
    try {
      const { trace } = record;
      if (trace === undefined) written = poster.post(event);
      else {
        recordTaskEvent(trace, type, record.seq, payload);
        // posted inside the task's trace: the poster parents the event's delivery spans on it
        written = context.with(trace.context, poster.post, poster, event);
      }
    } catch (error) {
      logger.error(`the event sink threw on ${type} of task ${record.id}; event lost`, {
        task_id: record.id,
        error: errorMessage(error),
      });
    }
    this.listeners.notify('event', record, event);
    return written;
  }

  /** Logs at debug that a finished task's body tried to `what`; returns true when it is finished. */
  ignoreIfFinished(record: TaskRecord, what: string): boolean {
    if (!record.finished) return false;
    this.parts.logger.debug(`task ${record.id} is ${record.state}; ignoring its attempt to ${what}`, {
      task_id: record.id,
      tool: record.tool,
    });
    return true;
  }

  /**
   * Runs the body on a later microtask (the caller of `start` has the TaskInfo before any event),
   * unless cancelled before it started, and records its outcome. Never rejects: a bookkeeping
   * failure is logged and fails the task. While the body runs, what the task keeps for its outcome
   * is one reaction on the body's promise (two small closures over the record and the promise it
   * settles), not a suspended async function (a generator, its register file, await closures:
   * ~260 B more per running task).
   */
  run(record: TaskRecord, body: TaskBody, ctx: TaskContext): Promise<void> {
    return BEFORE_BODY.then(() => this.startBody(record, body, ctx));
  }

  private startBody(record: TaskRecord, body: TaskBody, ctx: TaskContext): Promise<void> | undefined {
    if (record.finished) {
      record.bodySettled = true; // cancelled before it started: the body never runs
      return undefined;
    }
    let running: Promise<unknown>;
    try {
      running = Promise.resolve(body(ctx));
    } catch (error) {
      return this.afterBody(record, false, error);
    }
    return running.then(
      (value) => this.afterBody(record, true, value),
      (error: unknown) => this.afterBody(record, false, error),
    );
  }

  /** The body settled (`ok`: with `outcome` as its value; else it threw `outcome`). */
  private afterBody(record: TaskRecord, ok: boolean, outcome: unknown): Promise<void> | undefined {
    try {
      this.bodyStopped(record);
      // the task ends once its terminal event is durable
      const written = ok ? this.onBodyResult(record, outcome) : this.onBodyError(record, outcome);
      return written
        ? written.then(undefined, (error: unknown) => this.bookkeepingFailed(record, error))
        : undefined;
    } catch (error) {
      this.bookkeepingFailed(record, error);
      return undefined;
    }
  }

  private bookkeepingFailed(record: TaskRecord, error: unknown): void {
    this.parts.logger.error('task bookkeeping failed', { task_id: record.id, error: errorMessage(error) });
    // A hostile outcome (a thrown Proxy, a throwing getter) must not leave the task running.
    this.bodyStopped(record);
    if (record.finished) return;
    const why = `the task body of "${record.tool}" threw a value that cannot be inspected (${errorMessage(error)})`;
    this.finish(record, 'failed', internalFailure(why));
  }

  /** Records that the body settled; a cancelled task's TaskInfo stops saying `body_running`. */
  bodyStopped(record: TaskRecord): void {
    if (record.bodySettled) return;
    const wasRunning = record.bodyRunningAfterCancel;
    record.bodySettled = true;
    if (!wasRunning) return;
    record.updatedAtMs = this.parts.clock.now();
    this.parts.logger.info(`task ${record.id} (${record.tool}): its body stopped after cancellation`, {
      task_id: record.id,
      tool: record.tool,
      overran_grace: record.overranGrace,
    });
  }

  /** Moves a running task to succeeded/failed and emits its terminal event; returns its durable write. */
  finish(record: TaskRecord, state: 'succeeded' | 'failed', failure?: TaskFailure): void | Promise<void> {
    record.state = state;
    record.updatedAtMs = this.parts.clock.now();
    this.running -= 1;
    let written: void | Promise<void>;
    if (state === 'succeeded') {
      written = this.emit(record, 'task_done', deepFreeze({ result: record.result }), true);
    } else {
      record.failure = failure ?? null;
      const payload = deepFreeze(JSON.parse(JSON.stringify(failure)) as JsonObject);
      written = this.emit(record, 'task_failed', payload, true);
    }
    this.ended(record, state, failure?.error_code);
    this.finished(record);
    return written;
  }

  /** Marks a running task cancelled (no terminal event) and aborts its signal. */
  markCancelled(record: TaskRecord, reason: TaskCancelledError): void {
    record.state = 'cancelled';
    record.updatedAtMs = this.parts.clock.now();
    this.running -= 1;
    record.cancel(reason);
    this.ended(record, 'cancelled', undefined);
    this.parts.logger.info(`task ${record.id} (${record.tool}) cancelled`, {
      task_id: record.id,
      tool: record.tool,
    });
    this.finished(record);
  }

  private onBodyResult(record: TaskRecord, value: unknown): void | Promise<void> {
    if (this.ignoreIfFinished(record, 'return a result')) return;
    const check = toFrozenJsonObject(value);
    if (!check.ok) {
      const message =
        `the task body of "${record.tool}" returned ${check.problem.replace(/^got /, '')}; ` +
        'a task body must return a plain JSON object such as { arrived: true } (it becomes task_done {"result": ...})';
      this.parts.logger.error(`task ${record.id} failed: ${message}`, {
        task_id: record.id,
        tool: record.tool,
      });
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
      this.parts.logger.error(
        `task ${record.id} (${record.tool}) failed with an unexpected error: ${message}`,
        {
          task_id: record.id,
          tool: record.tool,
          error: message,
          stack: error instanceof Error ? error.stack : undefined,
        },
      );
      return this.finish(record, 'failed', internalFailure(message));
    }
    return undefined;
  }

  /** Ends the task's span and counts its end (tasks running, task duration). */
  private ended(
    record: TaskRecord,
    state: 'succeeded' | 'failed' | 'cancelled',
    code: string | undefined,
  ): void {
    endTaskTrace(record.trace, state, code);
    countTaskEnded(record.tool, state, this.parts.clock.now() - record.createdAtMs);
  }

  /** Drops a finished task whose body stopped; false (kept) otherwise. */
  forget(taskId: string): boolean {
    const record = this.tasks.get(taskId);
    if (!record?.finished || !record.bodySettled) return false;
    this.tasks.delete(taskId); // its id leaves the eviction queue in turn (deleting nothing then)
    return true;
  }

  private finished(record: TaskRecord): void {
    this.listeners.notify('finished', record);
    this.finishedQueue.push(record.id);
    while (this.finishedQueue.length > this.parts.maxFinishedRetained) {
      const evicted = this.finishedQueue.shift();
      if (evicted !== undefined) this.tasks.delete(evicted);
    }
  }
}
