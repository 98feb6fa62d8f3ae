import { ACTUATOR_BUSY } from '@robot-mcp-kit/core/store';
import { type TaskBody, type TaskInfo, type TaskManager, RobotMcpKitError } from '@robot-mcp-kit/core';
import { type TaskOwners } from '../auth/task-owners.js';
import { type LongRunningToolDefinition } from '../metadata/definitions.types.js';
import { type ToolCall } from './registered-tool.js';

/** A request to start the task of a long-running tool call. */
export interface StartRequest {
  readonly definition: LongRunningToolDefinition;
  readonly call: ToolCall;
  readonly triggers: unknown;
  readonly estDurationS: number | undefined;
  readonly body: TaskBody;
}

/** Refused because the tool's `maxConcurrent` is reached (and `preempt` is off). */
export class ConcurrencyLimitError extends RobotMcpKitError {
  constructor(tool: string, limit: number, running: readonly string[]) {
    super(
      'CONCURRENCY_LIMIT',
      `${tool} allows ${limit} running task(s) at once and ${running.length} are running: ${running.join(', ')}. ` +
        'Cancel one with cancel_task, or wait for it to finish.',
    );
  }
}

/** Refused because every lease of the tool's actuator is held by a task (of any replica sharing the store). */
export class ActuatorBusyError extends RobotMcpKitError {
  constructor(
    tool: string,
    readonly holders: readonly { task_id: string; replica: string }[],
  ) {
    const named = holders.map((h) => `${h.task_id} (replica ${h.replica})`).join(', ') || 'another task';
    super(
      ACTUATOR_BUSY,
      `ACTUATOR_BUSY: ${tool} was not started: its actuator is held by ${named}. ` +
        'Cancel that task with cancel_task (any replica), or wait for it to finish.',
    );
  }
}

/**
 * Takes the lease of a mover's actuator across replicas before its task starts (the task store),
 * and gives it back when the start fails; the holder releases it when its task ends.
 */
export interface ActuatorGate {
  /** @throws ActuatorBusyError when every slot is held */
  acquire(definition: LongRunningToolDefinition, taskId: string): Promise<void>;
  release(definition: LongRunningToolDefinition, taskId: string): Promise<void>;
}

/** The server is shutting down and accepts no new tasks. */
export class ShuttingDownError extends RobotMcpKitError {
  constructor() {
    super('SHUTTING_DOWN', 'the server is shutting down and starts no new tasks');
  }
}

/** Where starts take their task ids from (a task store's reservations, `RMK_STORE`). */
export interface TaskIdReserver {
  /** An id reserved for this start. */
  take(): Promise<string>;
  /** The start that took `taskId` is over: `used` when a task now has the id, false when it was refused. */
  settle(taskId: string, used: boolean): void;
}

/**
 * Starts tasks for long-running tools: applies the per-tool concurrency limit (refuse or preempt),
 * gives each start its origin (the calling session, its principal, the call's tags) — observers
 * read it on the TaskManager's `started` change — and refuses new work during shutdown.
 */
export class TaskStarter {
  private closing = false;
  /** Per tool with `maxConcurrent`: the tail of its queue of starts. */
  private readonly queues = new Map<string, Promise<void>>();
  /** Awaited before a start answers (the task store's write: durable creation). */
  private barrier: ((info: TaskInfo) => Promise<void>) | undefined;
  /** Reserves the id of each new task first (the task store: ids unique across replicas). */
  private ids: TaskIdReserver | undefined;
  /** Leases actuators across replicas (the task store): for actuating tools with `maxConcurrent`. */
  private actuators: ActuatorGate | undefined;

  /** `owners` says which principal a session is bound to (none: every origin is unauthenticated). */
  constructor(
    private readonly taskManager: TaskManager,
    private readonly owners?: Pick<TaskOwners, 'ofSession'>,
  ) {}

  /**
   * Starts the task. For a tool with `maxConcurrent`, starts of that tool run one at a time: the
   * limit check and the TaskManager start happen with no await between them, and a preempting
   * start holds the tool's slot while it waits for the tasks it cancels to settle, so batched or
   * pipelined calls never run more than `maxConcurrent` bodies at once.
   */
  start(request: StartRequest): Promise<TaskInfo> {
    if (this.barrier || this.ids || this.closing || request.definition.maxConcurrent !== undefined)
      return this.startAndWait(request);
    // The common case answers with no extra promise hops: no barrier, no per-tool queue.
    try {
      return Promise.resolve(this.startNow(request));
    } catch (error) {
      return Promise.reject(error as Error);
    }
  }

  private async startAndWait(request: StartRequest): Promise<TaskInfo> {
    const ids = this.closing ? undefined : this.ids;
    const taskId = ids ? await ids.take() : undefined;
    let info: TaskInfo;
    try {
      info = await this.startTask(request, taskId);
    } finally {
      // A refused start (busy, over its limit, shutting down) leaves its id reserved and unused.
      if (ids && taskId !== undefined) ids.settle(taskId, this.taskManager.get(taskId) !== undefined);
    }
    if (this.barrier) await this.barrier(info);
    return info;
  }

  /**
   * Makes every start answer only once `barrier(info)` resolved — with a task store configured,
   * once the task's record is written, so a task_id handed out can be read on any replica.
   */
  setStartBarrier(barrier: ((info: TaskInfo) => Promise<void>) | undefined): void {
    this.barrier = barrier;
  }

  /**
   * Makes every start use an id `ids.take()` resolved with (drawn from the TaskManager, reserved in
   * the store), and hand it back through `ids.settle()` once the start is over.
   */
  setIdReserver(ids: TaskIdReserver | undefined): void {
    this.ids = ids;
  }

  /** Makes actuating tools with `maxConcurrent` hold a lease of `gate` while their task runs. */
  setActuatorGate(gate: ActuatorGate | undefined): void {
    this.actuators = gate;
  }

  /**
   * Starts now (synchronously, as without a store), holding the actuator lease first when the tool
   * is a mover and a gate is set.
   */
  private startMover(request: StartRequest, taskId: string | undefined): TaskInfo | Promise<TaskInfo> {
    const gate = this.actuators;
    if (!gate || taskId === undefined || !request.definition.actuates) return this.startNow(request, taskId);
    return this.startLeased(gate, request, taskId);
  }

  private async startLeased(gate: ActuatorGate, request: StartRequest, taskId: string): Promise<TaskInfo> {
    const { definition } = request;
    await gate.acquire(definition, taskId);
    if (this.closing) {
      await gate.release(definition, taskId);
      throw new ShuttingDownError();
    }
    try {
      return this.startNow(request, taskId);
    } catch (error) {
      await gate.release(definition, taskId);
      throw error;
    }
  }

  private async startTask(request: StartRequest, taskId?: string): Promise<TaskInfo> {
    if (this.closing) throw new ShuttingDownError();
    const { definition } = request;
    if (definition.maxConcurrent === undefined) return this.startNow(request, taskId);
    return this.serialized(definition.name, async () => {
      const limit = definition.maxConcurrent ?? Infinity;
      for (;;) {
        if (this.closing) throw new ShuttingDownError();
        const running = this.runningOf(definition.name);
        if (running.length < limit) return this.startMover(request, taskId);
        if (!definition.preempt) {
          throw new ConcurrencyLimitError(
            definition.name,
            limit,
            running.map((t) => t.task_id),
          );
        }
        const excess = running.slice(0, running.length - limit + 1);
        await Promise.all(excess.map((t) => this.taskManager.cancel(t.task_id, { settle: true })));
      }
    });
  }

  /** Runs `work` after every earlier start of `tool` settled (a per-tool queue). */
  private async serialized<R>(tool: string, work: () => Promise<R>): Promise<R> {
    const previous = this.queues.get(tool) ?? Promise.resolve();
    const run = previous.then(work, work);
    const tail = run.then(
      () => undefined,
      () => undefined,
    );
    this.queues.set(tool, tail);
    try {
      return await run;
    } finally {
      if (this.queues.get(tool) === tail) this.queues.delete(tool);
    }
  }

  private runningOf(tool: string): TaskInfo[] {
    return this.taskManager.list(['running']).filter((t) => t.tool === tool);
  }

  /** Creates the task (synchronously); its origin reaches the observers on `started`. */
  private startNow(request: StartRequest, taskId?: string): TaskInfo {
    const { definition, call } = request;
    const sessionId = call.session.id;
    const principal = this.owners?.ofSession(sessionId);
    const origin: { sessionId: string; principal?: string; tags?: ReadonlyMap<symbol, unknown> } = {
      sessionId,
    };
    if (principal !== undefined) origin.principal = principal;
    if (call.tags) origin.tags = call.tags;
    return this.taskManager.start(definition.name, request.body, {
      triggers: request.triggers as unknown[] | null | undefined,
      estDurationS: request.estDurationS ?? null,
      origin,
      ...(taskId !== undefined ? { taskId } : {}),
    });
  }

  stopIntake(): void {
    this.closing = true;
  }
}
