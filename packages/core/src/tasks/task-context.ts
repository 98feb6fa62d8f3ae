import { type Clock } from '../clock/clock.port.js';
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
  private trackerView: TriggerTracker | undefined;
  private control: TaskControl | undefined;

  constructor(
    private readonly host: TaskHost,
    private readonly lifecycle: TaskEmitter,
    private readonly record: TaskRecord,
  ) {
    this.taskId = record.id;
    this.tool = record.tool;
    this.triggers = record.triggers;
  }

  /** Built on first use: most bodies fire no trigger. */
  private get tracker(): TriggerTracker {
    return (this.trackerView ??= new TriggerTracker(this.record.triggers));
  }

  /** Created on first use: Node builds an AbortSignal lazily, and that costs ~5 µs per task start. */
  get signal(): AbortSignal {
    return this.record.controller.signal;
  }

  /** Built on first use, like the signal: most bodies never control other tasks. */
  get tasks(): TaskControl {
    return (this.control ??= new ManagedTaskControl(this.host, this.taskId));
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

  sleep(ms: number): Promise<void> {
    const { record } = this;
    const { clock } = this.host;
    return new Promise<void>((resolve, reject) => {
      if (record.cancelReason !== undefined) {
        reject(record.cancelReason);
        return;
      }
      const wake = (reason: unknown): void => {
        clock.clearTimeout(handle);
        reject(reason);
      };
      const handle = clock.setTimeout(() => {
        record.cancelHooks?.delete(wake);
        resolve();
      }, ms);
      (record.cancelHooks ??= new Set()).add(wake);
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
