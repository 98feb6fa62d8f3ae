import { type EventType, type TaskEvent, type TaskInfo, type TaskManager } from '@robot-mcp-kit/core';
import { type EventSink } from '@robot-mcp-kit/core/host';

/** A fake at our own EventSink port: records every posted event, in order. */
export class RecordingSink implements EventSink {
  readonly events: TaskEvent[] = [];
  closed = 0;

  post(event: TaskEvent): void {
    this.events.push(event);
  }

  of(taskId: string): TaskEvent[] {
    return this.events.filter((e) => e.task_id === taskId);
  }

  typesOf(taskId: string): EventType[] {
    return this.of(taskId).map((e) => e.type);
  }
}

/** A RecordingSink with an aclose method, like an EventPoster. */
export class ClosableSink extends RecordingSink {
  async aclose(): Promise<void> {
    this.closed += 1;
  }
}

/** Resolves with the task's TaskInfo once it reaches a terminal state. */
export function finished(manager: TaskManager, taskId: string): Promise<TaskInfo> {
  return new Promise((resolve) => {
    const current = manager.get(taskId);
    if (current && current.state !== 'running') {
      resolve(current);
      return;
    }
    const stop = manager.onChange((change) => {
      if (change.kind === 'finished' && change.task.task_id === taskId) {
        stop();
        resolve(change.task);
      }
    });
  });
}

/** A promise with its resolve function exposed, to step a task body from a test. */
export interface Gate<T = void> {
  promise: Promise<T>;
  open(value: T): void;
}

export function gate<T = void>(): Gate<T> {
  let open!: (value: T) => void;
  const promise = new Promise<T>((resolve) => {
    open = resolve;
  });
  return { promise, open };
}

/** Lets queued microtasks and immediate callbacks run. */
export async function settle(): Promise<void> {
  for (let i = 0; i < 5; i += 1) await new Promise<void>((resolve) => setImmediate(resolve));
}
