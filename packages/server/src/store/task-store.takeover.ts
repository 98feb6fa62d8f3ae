import { type JsonObject, parseTaskInfo, TaskEvent, type TaskInfo } from '@robot-mcp-kit/core';
import { type StoredTask, type TaskStore } from '@robot-mcp-kit/core/store';
import { randomUUID } from 'node:crypto';
import { type TaskStoreBridgeParts } from './task-store.bridge.js';
import { type TaskWriteQueue } from './task-store.writes.js';

/** How long a fenced replica waits for its stopped tasks' last writes before it goes on. */
const FENCED_FLUSH_MS = 3000;

/**
 * This replica was fenced (paused or cut off past its lease; a survivor failed its tasks
 * `REPLICA_LOST` and took over their pending events). Its running tasks' bodies are stopped
 * through the cancel path (their AbortSignal fires; no event), what they still write is refused by
 * Redis under the old epoch, every event the poster still holds is relinquished to the survivor
 * (left in the outbox, not sent), and then it takes a new lease under a new epoch and goes on:
 * new tasks run, the old ones stay failed `REPLICA_LOST`. The store logged why.
 * `stillConnected()`: whether `store` is still the bridge's (not closed meanwhile).
 */
export async function stopFencedTasks(
  parts: TaskStoreBridgeParts,
  writes: TaskWriteQueue,
  store: TaskStore,
  stillConnected: () => boolean,
): Promise<void> {
  const { taskManager, poster, logger } = parts;
  const running = taskManager.list(['running']).map((t) => t.task_id);
  if (running.length > 0) {
    logger.error(
      `stopping ${running.length} running tasks: this replica no longer owns them (a survivor failed them REPLICA_LOST)`,
      { task_ids: running },
    );
    await Promise.allSettled(running.map((id) => taskManager.cancel(id, { settle: true })));
    // their last writes (refused under the old epoch) before a new epoch exists
    await writes.settled(running, FENCED_FLUSH_MS);
    // the survivor's outcome (failed REPLICA_LOST, in the store) is the answer here too
    for (const id of running) taskManager.forget(id);
  }
  poster.relinquish();
  if (!store.rejoin || !stillConnected()) return;
  logger.warn(
    running.length > 0
      ? 'their bodies stopped: taking a new lease and going on'
      : 'no task was running: taking a new lease and going on',
  );
  await store.rejoin();
}

/**
 * Posts the `task_failed` of a lost replica's task, as the next event of that task, through the
 * TaskManager's relay: this replica's observers (event feed, resource subscriptions) see it too.
 * The lost owner's pending events of the task go into the poster's queue first.
 */
export async function postLostTask(parts: TaskStoreBridgeParts, failed: StoredTask): Promise<void> {
  try {
    await parts.takeOverFrom?.(failed.owner);
  } catch (error) {
    parts.logger.warn("could not take over a lost replica's events before its task's failure", {
      task_id: failed.task.task_id,
      lost: failed.owner,
      error: error instanceof Error ? error.message : String(error),
    });
  }
  const { task } = failed;
  const event = TaskEvent.create({
    event_id: randomUUID(),
    task_id: task.task_id,
    server: parts.serverName,
    tool: task.tool,
    type: 'task_failed',
    seq: failed.lastSeq,
    ts: new Date(),
    payload: (task.failure ?? {}) as unknown as JsonObject,
  });
  let info: TaskInfo;
  try {
    info = parseTaskInfo(JSON.stringify(task));
  } catch {
    parts.poster.post(event); // a record this version cannot read: delivered, not observed
    return;
  }
  const written = parts.taskManager.relay(event, info);
  written?.catch((error: unknown) =>
    parts.logger.error('could not write the relayed task_failed of a lost replica', {
      task_id: task.task_id,
      error: String(error),
    }),
  );
}
