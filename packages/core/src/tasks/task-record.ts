import { type JsonObject } from '../models/json.types.js';
import { type TaskState } from '../models/schema.js';
import { TaskFailure } from '../models/task-failure.model.js';
import { TaskInfo } from '../models/task-info.model.js';
import { type TaskTrace } from '../telemetry/task-telemetry.js';
import { type Trigger } from '../triggers/trigger.types.js';

/** The `settled` of a record whose body was not started: one shared resolved promise. */
const NOT_STARTED: Promise<void> = Promise.resolve();

type CancelHook = (reason: unknown) => void;

/** The TaskManager's mutable state of one task. Internal: callers only ever see TaskInfo snapshots. */
export class TaskRecord {
  state: TaskState = 'running';
  updatedAtMs: number;
  /** Last progress payload, result and failure: frozen JSON copies, safe to share with snapshots. */
  progress: JsonObject | null = null;
  result: JsonObject | null = null;
  failure: TaskFailure | null = null;
  /** The seq of the last emitted event. */
  seq = 0;
  /** True once the body's promise settled (or the body was never run). */
  bodySettled = false;
  /** Resolves once the body settled and its outcome was recorded. Never rejects. */
  settled: Promise<void> = NOT_STARTED;
  /** Resolves when a cancelled body stopped, or when the cancel grace ran out (shared by cancels). */
  cancelWait: Promise<void> | undefined;
  /** The task's span and trace context; undefined when no OpenTelemetry SDK is registered. */
  trace: TaskTrace | undefined = undefined;
  /** True once a cancelled body was still running when the cancel grace ran out. */
  overranGrace = false;
  /** Why the task was cancelled, once it was: pending and later `ctx.sleep` calls reject with it. */
  cancelReason: unknown = undefined;
  /**
   * The pending `ctx.sleep` calls, woken by {@link cancel}: a hook per sleep is much cheaper than an
   * AbortSignal listener per sleep (profiled at 10 000 sleeping tasks: ~1 KB and ~5 µs each). One
   * pending sleep (the usual case) takes a field; a Set (~150 bytes) only once two are pending.
   */
  private cancelHook: CancelHook | undefined = undefined;
  private cancelHookSet: Set<CancelHook> | undefined = undefined;
  /** Created on first read of {@link controller}: most bodies never read `ctx.signal`. */
  private abortController: AbortController | undefined = undefined;
  private abortRequested = false;

  constructor(
    readonly id: string,
    readonly server: string,
    readonly tool: string,
    /** Deep, frozen copies of the caller's triggers. */
    readonly triggers: readonly Trigger[],
    readonly estDurationS: number | null,
    readonly createdAtMs: number,
  ) {
    this.updatedAtMs = createdAtMs;
  }

  /**
   * The task's abort controller, built on first use (an AbortController per start cost ~1 µs and
   * its garbage on every task); built after a cancel, it is already aborted with the cancel reason.
   */
  get controller(): AbortController {
    if (this.abortController) return this.abortController;
    const controller = new AbortController();
    if (this.abortRequested) controller.abort(this.cancelReason);
    this.abortController = controller;
    return controller;
  }

  /** Aborts the task's signal with `reason` and rejects its pending sleeps. */
  cancel(reason: unknown): void {
    this.cancelReason ??= reason;
    this.abortRequested = true;
    const controller = this.abortController;
    if (controller && !controller.signal.aborted) controller.abort(this.cancelReason);
    if (this.cancelHook === undefined && this.cancelHookSet === undefined) return;
    const hooks = this.cancelHookSet ? [...this.cancelHookSet] : [];
    if (this.cancelHook) hooks.unshift(this.cancelHook);
    this.cancelHook = undefined;
    this.cancelHookSet = undefined;
    for (const hook of hooks) hook(reason);
  }

  /** Registers a pending sleep's wake-up, called with the reason by {@link cancel}. */
  addCancelHook(hook: CancelHook): void {
    if (this.cancelHook === undefined && this.cancelHookSet === undefined) this.cancelHook = hook;
    else (this.cancelHookSet ??= new Set()).add(hook);
  }

  /** Forgets a sleep's wake-up (the sleep ended). */
  deleteCancelHook(hook: CancelHook): void {
    if (this.cancelHook === hook) this.cancelHook = undefined;
    else this.cancelHookSet?.delete(hook);
  }

  /** How many sleeps wait on this task's cancellation (for tests). */
  get cancelHookCount(): number {
    return (this.cancelHook ? 1 : 0) + (this.cancelHookSet?.size ?? 0);
  }

  /** Cancelled, but the body has not stopped yet: the work may still be acting. */
  get bodyRunningAfterCancel(): boolean {
    return this.state === 'cancelled' && !this.bodySettled;
  }

  get finished(): boolean {
    return this.state !== 'running';
  }

  /** A new TaskInfo; nothing in it aliases mutable state. */
  snapshot(): TaskInfo {
    return TaskInfo.create({
      task_id: this.id,
      server: this.server,
      tool: this.tool,
      state: this.state,
      created_at: new Date(this.createdAtMs),
      updated_at: new Date(this.updatedAtMs),
      triggers: this.triggers,
      est_duration_s: this.estDurationS,
      progress: this.progress,
      result: this.result,
      failure: this.failure ? TaskFailure.create(this.failure) : null,
      body_running: this.bodyRunningAfterCancel,
      overran_grace: this.overranGrace,
    });
  }
}
