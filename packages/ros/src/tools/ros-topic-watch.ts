import { type JsonObject, type TaskContext, TaskCancelledError } from '@robot-mcp-kit/server';
import { type RosMessageType } from '../messages/ros-interface.types.js';
import { type RoslibRosConnection } from '../connection/roslib-ros.connection.js';

/** Options of {@link watchRosTopic}. */
export interface RosTopicWatchOptions<M> {
  /** A message → the task's progress (what its triggers read); undefined skips it. */
  readonly progress: (message: M) => JsonObject | undefined;
  /** At most one progress report per this many ms (default 1000). */
  readonly minIntervalMs?: number;
}

/**
 * A watcher body fed by a topic: each (rate-limited) message becomes progress, so the task's
 * triggers (`battery_below`, `zone_entered`, ...) fire from it. Runs until the task is cancelled;
 * it survives a rosbridge reconnect (roslib subscribes again).
 */
export async function watchRosTopic<M extends object>(
  connection: RoslibRosConnection,
  topic: string,
  type: RosMessageType<M>,
  ctx: TaskContext,
  options: RosTopicWatchOptions<M>,
): Promise<never> {
  ctx.throwIfCancelled();
  let reporting: Promise<void> = Promise.resolve();
  const unsubscribe = connection.subscribe(
    topic,
    type,
    (message) => {
      const progress = options.progress(message);
      if (progress) reporting = reporting.then(() => ctx.progress(progress)).catch(() => undefined);
    },
    { minIntervalMs: options.minIntervalMs ?? 1000 },
  );
  try {
    await new Promise<never>((_resolve, reject) => {
      ctx.signal.addEventListener('abort', () => reject(new TaskCancelledError(ctx.taskId)), { once: true });
    });
    throw new TaskCancelledError(ctx.taskId);
  } finally {
    unsubscribe();
  }
}
