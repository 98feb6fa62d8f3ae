import { type TaskBody, type TaskInfo, type TaskManager, RobotMcpKitError } from '@robot-mcp-kit/core';
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

/** The server is shutting down and accepts no new tasks. */
export class ShuttingDownError extends RobotMcpKitError {
  constructor() {
    super('SHUTTING_DOWN', 'the server is shutting down and starts no new tasks');
  }
}

/** Called right after a task started, before its first event can be emitted. */
export type TaskStartedListener = (info: TaskInfo, sessionId: string) => void;

/**
 * Starts tasks for long-running tools: applies the per-tool concurrency limit (refuse or preempt),
 * records which session started which task, and refuses new work during shutdown.
 */
export class TaskStarter {
  private closing = false;
  private readonly sessionOf = new Map<string, string>();
  private readonly startedListeners = new Set<TaskStartedListener>();
  /** Per tool with `maxConcurrent`: the tail of its queue of starts. */
  private readonly queues = new Map<string, Promise<void>>();
  /** Awaited before a start answers (the task store's write: durable creation). */
  private barrier: ((info: TaskInfo) => Promise<void>) | undefined;

  constructor(private readonly taskManager: TaskManager) {
    taskManager.onChange((change) => {
      if (change.kind === 'finished') this.sessionOf.delete(change.taskId);
    });
  }

  /**
   * Starts the task. For a tool with `maxConcurrent`, starts of that tool run one at a time: the
   * limit check and the TaskManager start happen with no await between them, and a preempting
   * start holds the tool's slot while it waits for the tasks it cancels to settle, so batched or
   * pipelined calls never run more than `maxConcurrent` bodies at once.
   */
  async start(request: StartRequest): Promise<TaskInfo> {
    const info = await this.startTask(request);
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

  private async startTask(request: StartRequest): Promise<TaskInfo> {
    if (this.closing) throw new ShuttingDownError();
    const { definition } = request;
    if (definition.maxConcurrent === undefined) return this.startNow(request);
    return this.serialized(definition.name, async () => {
      const limit = definition.maxConcurrent ?? Infinity;
      for (;;) {
        if (this.closing) throw new ShuttingDownError();
        const running = this.runningOf(definition.name);
        if (running.length < limit) return this.startNow(request);
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

  /** Creates the task (synchronously) and tells the listeners. */
  private startNow(request: StartRequest): TaskInfo {
    const { definition } = request;
    const info = this.taskManager.start(definition.name, request.body, {
      triggers: request.triggers as unknown[] | null | undefined,
      estDurationS: request.estDurationS ?? null,
    });
    const sessionId = request.call.session.id;
    this.sessionOf.set(info.task_id, sessionId);
    for (const listener of this.startedListeners) {
      try {
        listener(info, sessionId);
      } catch (err) {
        this.taskManager.logger.error('a task-started listener threw', {
          task_id: info.task_id,
          error: err instanceof Error ? err.message : String(err),
        });
      }
    }
    return info;
  }

  /**
   * Observes task starts. The listener runs synchronously after the TaskManager created the task
   * and before the task body runs, so state captured there (an event feed cursor) precedes every
   * event of the task. Returns the function that stops observing.
   */
  onStarted(listener: TaskStartedListener): () => void {
    this.startedListeners.add(listener);
    return () => {
      this.startedListeners.delete(listener);
    };
  }

  /** Running task ids started by `sessionId`. */
  tasksOfSession(sessionId: string): string[] {
    return [...this.sessionOf].filter(([, s]) => s === sessionId).map(([taskId]) => taskId);
  }

  /** The session that started a task, if known. */
  sessionOfTask(taskId: string): string | undefined {
    return this.sessionOf.get(taskId);
  }

  stopIntake(): void {
    this.closing = true;
  }
}
