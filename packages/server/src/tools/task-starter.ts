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

  constructor(private readonly taskManager: TaskManager) {
    taskManager.onChange((change) => {
      if (change.kind === 'finished') this.sessionOf.delete(change.taskId);
    });
  }

  async start(request: StartRequest): Promise<TaskInfo> {
    if (this.closing) throw new ShuttingDownError();
    const { definition } = request;
    if (definition.maxConcurrent !== undefined) {
      const running = this.taskManager.list(['running']).filter((t) => t.tool === definition.name);
      if (running.length >= definition.maxConcurrent) {
        if (!definition.preempt) {
          throw new ConcurrencyLimitError(
            definition.name,
            definition.maxConcurrent,
            running.map((t) => t.task_id),
          );
        }
        const excess = running.slice(0, running.length - definition.maxConcurrent + 1);
        await Promise.all(excess.map((t) => this.taskManager.cancel(t.task_id)));
      }
    }
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
