import { type Logger, RobotMcpKitError, systemClock } from '@robot-mcp-kit/core';
import { type TaskStore } from '@robot-mcp-kit/core/store';
import { waitAtMost } from '@robot-mcp-kit/core/support';
import { TaskIdPool } from './task-ids.pool.js';

/** How long close() waits for the reservations of unused ids to be released (Redis may be down). */
const RELEASE_IDS_WAIT_MS = 1000;
/** How long an id's reservation lasts when the store does not say (its finished-task retention). */
const DEFAULT_RESERVATION_MS = 60_000;

/**
 * New task ids reserved in one store (ids are unique across replicas for as long as the store keeps
 * the task), from a {@link TaskIdPool} reserved ahead: a start waits for its record's write only.
 * Under a store outage an id is used unreserved (logged; its start write is retried as usual).
 */
export class StoreTaskIds {
  private readonly pool: TaskIdPool;
  /** Ids drawn here that another replica had reserved already (each drawn again). */
  clashes = 0;
  /** Ids used unreserved because the store did not answer. */
  unreserved = 0;

  constructor(
    private readonly store: TaskStore,
    private readonly draw: () => string,
    private readonly logger: Logger,
  ) {
    this.pool = new TaskIdPool({
      draw,
      reserve: (id) => store.reserveId?.(id) ?? Promise.resolve(true),
      reservationMs: store.idReservationMs ?? DEFAULT_RESERVATION_MS,
      clashed: (id) => {
        this.clashes += 1;
        logger.debug('task id taken by another replica; drawing another', {
          task_id: id,
          clashes: this.clashes,
        });
      },
    });
  }

  /** A reserved id. @throws RobotMcpKitError TASK_ID_EXHAUSTED after `MAX_ID_ATTEMPTS` clashes in a row */
  async take(): Promise<string> {
    try {
      return await this.pool.take();
    } catch (error) {
      if (error instanceof RobotMcpKitError && error.code === 'TASK_ID_EXHAUSTED') throw error;
      const id = this.draw();
      this.unreserved += 1;
      this.logger.warn('task store unreachable: a task id is used without its reservation', {
        task_id: id,
        error: error instanceof Error ? error.message : String(error),
      });
      return id;
    }
  }

  /**
   * The start that took `taskId` is over (`used`: a task has it). An unused reserved id goes back to
   * the pool for the next start; after close, its reservation is released instead.
   */
  settle(taskId: string, used: boolean): void {
    if (this.pool.settle(taskId, used) === 'release') void this.release([taskId]);
  }

  /**
   * Stops drawing and releases the reservations of the ids held unused (`TaskStore.releaseIds`, one
   * round trip, at most 1 s), so they do not stay taken until they expire; a failure is logged.
   */
  async close(): Promise<void> {
    await waitAtMost(this.releaseUnused(), systemClock, RELEASE_IDS_WAIT_MS);
  }

  private async releaseUnused(): Promise<void> {
    await this.release(await this.pool.close());
  }

  private async release(unused: readonly string[]): Promise<void> {
    if (unused.length === 0 || !this.store.releaseIds) return;
    try {
      const released = await this.store.releaseIds([...unused]);
      this.logger.debug('released the reservations of unused task ids', { released });
    } catch (error) {
      this.logger.warn('task store: could not release unused task id reservations; they expire', {
        ids: unused.length,
        error: error instanceof Error ? error.message : String(error),
      });
    }
  }
}
