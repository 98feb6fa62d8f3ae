import { type Clock, type TimerHandle } from '../clock/clock.port.js';
import { QueuedTimer, type TimerQueue, timerQueueFor } from '../clock/timer-queue.js';
import { type JsonObject } from '../models/json.types.js';
import { type Logger } from '../logging/logger.js';
import { type TaskInfo } from '../models/task-info.model.js';
import { type TriggerRegistry } from '../triggers/trigger.registry.js';
import { type Trigger } from '../triggers/trigger.types.js';
import { TaskArgumentError } from './task.error.js';
import {
  deepFreeze,
  describeValue,
  errorMessage,
  jsonPrefix,
  shortText,
  toFrozenJsonObject,
} from './task-json.util.js';
import { type TaskLifecycle } from './task-lifecycle.js';
import { type TaskRecord } from './task-record.js';
import { type TaskContext } from './task.types.js';
import { TriggerTracker } from './task-triggers.js';
import { ManagedTaskControl, type TaskControl, type TaskControlHost } from './task-control.js';

/** What a task context reads from its manager's public side (clock, logger, triggers, control). */
export interface TaskHost extends TaskControlHost {
  readonly clock: Clock;
  readonly logger: Logger;
  readonly registry: TriggerRegistry;
}

/** The private port a task context emits through: the manager's {@link TaskLifecycle}. */
type TaskEmitter = Pick<TaskLifecycle, 'emit' | 'ignoreIfFinished'>;

function jsonArgument(value: unknown, argument: string, example: string): JsonObject {
  const check = toFrozenJsonObject(value);
  if (check.ok) return check.value;
  throw new TaskArgumentError(argument, `expected a plain JSON object such as ${example}, ${check.problem}`);
}

/** The {@link TaskContext} the TaskManager hands to a task body. */
export class ManagedTaskContext implements TaskContext {
  readonly taskId: string;
  readonly tool: string;
  readonly triggers: readonly Trigger[];
  // Fields are initialized so that they live in the object (added later, they would take a
  // separate property array per task).
  private trackerState: TriggerTracker | undefined = undefined;
  private control: TaskControl | undefined = undefined;
  private taskLogger: Logger | undefined = undefined;
  /** The pending sleep (see {@link sleep}), and the one timer callback and cancel hook of all of them. */
  private sleepResolve: (() => void) | undefined = undefined;
  private sleepReject: ((reason: unknown) => void) | undefined = undefined;
  private sleepTimer: TimerHandle | undefined = undefined;
  private sleepEnd: (() => void) | undefined = undefined;
  /** The pending sleep's place in a timer queue (system clock), made on the first such sleep. */
  private sleepQueued: QueuedSleep | undefined = undefined;

  constructor(
    private readonly host: TaskHost,
    private readonly lifecycle: TaskEmitter,
    private readonly record: TaskRecord,
  ) {
    this.taskId = record.id;
    this.tool = record.tool;
    this.triggers = record.triggers;
  }

  /** Built on first use: a task without triggers that never fires one by hand needs none. */
  private get tracker(): TriggerTracker {
    return (this.trackerState ??= new TriggerTracker(this.triggers));
  }

  /** Created on first use: Node builds an AbortSignal lazily, and that costs ~5 µs per task start. */
  get signal(): AbortSignal {
    return this.record.controller.signal;
  }

  /** Built on first use, like the signal: most bodies never control other tasks. */
  get tasks(): TaskControl {
    return (this.control ??= new ManagedTaskControl(this.host, this.taskId));
  }

  /** Built on first use: a child of the server's logger carrying `task_id` and `tool`. */
  get logger(): Logger {
    return (this.taskLogger ??= this.host.logger.child({ task_id: this.taskId, tool: this.tool }));
  }

  async progress(payload: JsonObject): Promise<void> {
    const progress = jsonArgument(payload, 'payload', '{ percent: 40, eta_s: 12.5 }');
    if (this.lifecycle.ignoreIfFinished(this.record, 'report progress')) return;
    this.record.progress = progress;
    const written = this.lifecycle.emit(this.record, 'progress', progress);
    const fired = this.triggers.length > 0 ? this.evaluateTriggers(progress) : undefined;
    // with a durable outbox: returns once the events are written (they then survive the process)
    if (written) await written;
    if (fired) await Promise.all(fired);
  }

  async fireTrigger(trigger: Trigger, extra?: JsonObject): Promise<void> {
    if (!isTriggerLike(trigger)) {
      throw new TaskArgumentError(
        'trigger',
        `expected a trigger object with a non-empty "type" such as one of ctx.triggers, got ${describeValue(trigger)}`,
      );
    }
    const extraPayload = extra === undefined ? {} : jsonArgument(extra, 'extra', '{ eta_s: 9.4 }');
    const index = this.tracker.indexOf(trigger);
    const byValue =
      index < 0 ? jsonArgument(trigger, 'trigger', '{ type: "eta_below", seconds: 10 }') : undefined;
    if (this.lifecycle.ignoreIfFinished(this.record, `fire a ${trigger.type} trigger`)) return;
    let fired: JsonObject | undefined;
    if (byValue) {
      fired = this.tracker.claimByValue(byValue);
    } else if (this.tracker.canFire(index)) {
      this.tracker.markFired(index);
      fired = this.triggers[index];
    }
    if (fired === undefined) {
      this.host.logger.debug(`task ${this.taskId}: ${trigger.type} trigger already fired; not firing again`, {
        task_id: this.taskId,
        trigger: byValue ?? trigger,
      });
      return;
    }
    const written = this.lifecycle.emit(this.record, 'trigger_fired', firedPayload(fired, extraPayload));
    if (written) await written;
  }

  async emit(payload: JsonObject): Promise<void> {
    const event = jsonArgument(payload, 'payload', '{ object: "cup", confidence: 0.9 }');
    if (this.lifecycle.ignoreIfFinished(this.record, 'emit a watch_event')) return;
    const written = this.lifecycle.emit(this.record, 'watch_event', event);
    if (written) await written;
  }

  throwIfCancelled(): void {
    this.signal.throwIfAborted();
  }

  /**
   * The usual case — one sleep at a time — keeps its resolve/reject on this context and reuses one
   * callback and one cancel hook for every sleep of the task; on the system clock it waits in the
   * process's {@link TimerQueue} (no Timeout per sleep). A sleep then costs a promise and nothing
   * more that lives as long as it does (past a young-generation GC: at 10 000 tasks sleeping in
   * steps that is what peak RSS is made of). A second sleep pending at the same time takes
   * {@link sleepAlongside}.
   */
  sleep(ms: number): Promise<void> {
    const { record } = this;
    if (record.cancelReason !== undefined) return Promise.reject(record.cancelReason);
    if (this.sleepResolve !== undefined) return this.sleepAlongside(ms);
    return new Promise<void>((resolve, reject) => {
      this.sleepResolve = resolve;
      this.sleepReject = reject;
      const end = (this.sleepEnd ??= () => this.endSleep());
      const queue = timerQueueFor(this.host.clock, ms);
      if (queue) {
        const queued = (this.sleepQueued ??= new QueuedSleep(end));
        queued.queue = queue;
        queue.add(queued, ms);
      } else {
        this.sleepTimer = this.host.clock.setTimeout(end, ms);
      }
      record.addCancelHook(end);
    });
  }

  /**
   * Ends the pending sleep: its timer elapsed, or the task was cancelled (the record's cancel sets
   * the reason, then calls the hooks at once: the sleep is rejected with that reason).
   */
  private endSleep(): void {
    const { sleepResolve: resolve, sleepReject: reject, sleepTimer: timer, record } = this;
    if (!resolve || !reject) return;
    this.sleepResolve = undefined;
    this.sleepReject = undefined;
    this.sleepTimer = undefined;
    if (record.cancelReason !== undefined) {
      if (timer !== undefined) this.host.clock.clearTimeout(timer);
      this.sleepQueued?.dequeue();
      reject(record.cancelReason);
      return;
    }
    if (this.sleepEnd) record.deleteCancelHook(this.sleepEnd);
    resolve();
  }

  /** A sleep while another is pending: its own timer callback and cancel hook. */
  private sleepAlongside(ms: number): Promise<void> {
    const { record } = this;
    const { clock } = this.host;
    return new Promise<void>((resolve, reject) => {
      const wake = (reason: unknown): void => {
        clock.clearTimeout(handle);
        reject(reason);
      };
      const handle = clock.setTimeout(() => {
        record.deleteCancelHook(wake);
        resolve();
      }, ms);
      record.addCancelHook(wake);
    });
  }

  /** Runs the registered evaluators over the task's triggers, in list order; returns the durable writes. */
  private evaluateTriggers(progress: JsonObject): Promise<void>[] | undefined {
    const { logger, registry } = this.host;
    let snapshot: TaskInfo | undefined;
    let writes: Promise<void>[] | undefined;
    this.triggers.forEach((trigger, index) => {
      const evaluator = registry.get(trigger.type);
      if (!evaluator) {
        if (this.tracker.firstUnknown(trigger.type)) {
          logger.warn(
            `task ${this.taskId}: unknown trigger type "${shortText(trigger.type, 60)}" ignored (known: ${registry.types().join(', ') || 'none'})`,
            { task_id: this.taskId, tool: this.tool, trigger: jsonPrefix(trigger) },
          );
        }
        return;
      }
      if (!this.tracker.canFire(index) || this.record.finished) return;
      let extra: unknown;
      try {
        snapshot ??= this.record.snapshot();
        extra = evaluator.evaluate(trigger, progress, snapshot);
      } catch (error) {
        logger.error(`task ${this.taskId}: the "${trigger.type}" trigger evaluator threw; trigger skipped`, {
          task_id: this.taskId,
          trigger: jsonPrefix(trigger),
          error: errorMessage(error),
          stack: error instanceof Error ? error.stack : undefined,
        });
        return;
      }
      if (extra === undefined) return;
      const check = toFrozenJsonObject(extra);
      if (!check.ok) {
        logger.error(
          `task ${this.taskId}: the "${trigger.type}" trigger evaluator must return a plain JSON object ` +
            `or undefined; it ${check.problem}; trigger skipped`,
          { task_id: this.taskId, trigger },
        );
        return;
      }
      this.tracker.markFired(index);
      const written = this.lifecycle.emit(this.record, 'trigger_fired', firedPayload(trigger, check.value));
      if (written) (writes ??= []).push(written);
    });
    return writes;
  }
}

function isTriggerLike(value: unknown): value is Trigger {
  if (typeof value !== 'object' || value === null) return false;
  const { type } = value as { type?: unknown };
  return typeof type === 'string' && type.length > 0;
}

/** `{ trigger, ...extra }`, trigger key first; an `extra.trigger` cannot replace the trigger. */
function firedPayload(trigger: JsonObject, extra: JsonObject): JsonObject {
  const payload: JsonObject = { trigger };
  for (const [key, value] of Object.entries(extra)) if (key !== 'trigger') payload[key] = value;
  return deepFreeze(payload);
}

/** A context's pending sleep in a {@link TimerQueue}: one per context, reused by its sleeps. */
class QueuedSleep extends QueuedTimer {
  queue: TimerQueue | undefined = undefined;

  constructor(private readonly end: () => void) {
    super();
  }

  onTimer(): void {
    this.end();
  }

  /** Leaves the queue (the sleep was cancelled). */
  dequeue(): void {
    this.queue?.delete(this);
  }
}
