import { type Clock } from '../clock/clock.port.js';
import { type Logger } from '../logging/logger.js';
import { TaskFailure } from '../models/task-failure.model.js';
import { type TaskRecord } from './task-record.js';

/** The failure of a task whose body threw something other than a TaskError, or returned a non-object. */
export function internalFailure(message: string): TaskFailure {
  return TaskFailure.create({ error_code: 'INTERNAL', message, recoverable: false, suggestions: [] });
}

/**
 * Resolves when the cancelled task's body settled, or after `graceMs` on `clock` with a warning
 * that the body ignored cancellation and `record.overranGrace` set (its TaskInfo then says
 * `overran_grace: true` until the body exits; its events are dropped).
 */
export function awaitCancelledBody(
  record: TaskRecord,
  clock: Clock,
  graceMs: number,
  logger: Logger,
): Promise<void> {
  if (record.bodySettled) return Promise.resolve();
  return new Promise<void>((resolve) => {
    let done = false;
    const timer = clock.setTimeout(() => {
      if (done) return;
      done = true;
      record.overranGrace = true;
      logger.warn(
        `task ${record.id} (${record.tool}) ignored cancellation: its body was still running ` +
          `${graceMs} ms after cancel; its TaskInfo says body_running and overran_grace until it exits, ` +
          'and its events are dropped. Pass ctx.signal to what it awaits, or call ' +
          'ctx.throwIfCancelled() between steps',
        { task_id: record.id, tool: record.tool },
      );
      resolve();
    }, graceMs);
    void record.settled.then(() => {
      if (done) return;
      done = true;
      clock.clearTimeout(timer);
      resolve();
    });
  });
}
