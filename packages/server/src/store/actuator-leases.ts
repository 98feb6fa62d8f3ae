import {
  type Clock,
  type Logger,
  RobotMcpKitError,
  systemClock,
  type TaskManager,
} from '@robot-mcp-kit/core';
import { type ActuatorClaim, type TaskStore } from '@robot-mcp-kit/core/store';
import { type LongRunningToolDefinition } from '../metadata/definitions.types.js';
import { ActuatorBusyError, type ActuatorGate, type TaskStarter } from '../tools/task-starter.js';

/** What the actuator leases are wired to. */
export interface ActuatorLeaseParts {
  readonly taskManager: TaskManager;
  readonly starter: TaskStarter;
  readonly store: TaskStore;
  readonly logger: Logger;
  /** Times the wait of a preempting start (default: the system clock). */
  readonly clock?: Clock;
}

/** How long a preempting start waits for the holder on another replica to let its lease go. */
const PREEMPT_WAIT_MS = 5_000;
/** How often a preempting start tries the lease again meanwhile. */
const PREEMPT_RETRY_MS = 50;

function pause(clock: Clock, ms: number): Promise<void> {
  return new Promise((resolve) => void clock.setTimeout(resolve, ms));
}

/**
 * Preemption across replicas: asks the owner of one holder on another replica to cancel it (the
 * store's MAC'd cancel request), then tries the lease again until it is taken or
 * {@link PREEMPT_WAIT_MS} ran out; answers the last claim (still held: nothing was taken).
 */
async function preempt(
  parts: ActuatorLeaseParts,
  claim: ActuatorClaim,
  retry: () => Promise<ActuatorClaim>,
): Promise<ActuatorClaim> {
  const { store, logger, clock = systemClock } = parts;
  if (claim.taken) return claim;
  const remote = claim.holders.find((h) => h.replica !== store.replicaId);
  if (remote) {
    logger.info('preempting the holder of an actuator lease on another replica', { ...remote });
    await store.requestCancel({ owner: remote.replica, task: { task_id: remote.task_id } }).catch((error) =>
      logger.warn('could not send the cancel request of a preempting start', {
        ...remote,
        error: error instanceof Error ? error.message : String(error),
      }),
    );
  }
  const deadline = clock.now() + PREEMPT_WAIT_MS;
  let last: ActuatorClaim = claim;
  while (!last.taken && clock.now() < deadline) {
    await pause(clock, PREEMPT_RETRY_MS);
    last = await retry();
  }
  return last;
}

/** The actuator of a mover: its tool name (one lease per tool, `maxConcurrent` slots). */
function actuatorOf(definition: LongRunningToolDefinition): string {
  return definition.name;
}

/**
 * Makes `maxConcurrent` of actuating long-running tools hold across the replicas sharing `store`:
 * each start takes one of the tool's `maxConcurrent` actuator leases in the store (refused with
 * `ACTUATOR_BUSY`, naming the holders, when every one is held on any replica), and the lease is
 * released when the task ends. A tool with `preempt` cancels a holder on another replica (the
 * store's cancel request to its owner) and waits, bounded, for its lease before it is refused.
 * Returns the function that unwires it. A store without actuator leases leaves the rule per process.
 */
export function wireActuatorLeases(parts: ActuatorLeaseParts): () => void {
  const { taskManager, starter, store, logger } = parts;
  const acquireActuator = store.acquireActuator?.bind(store);
  const releaseActuator = store.releaseActuator?.bind(store);
  if (!acquireActuator || !releaseActuator) return () => undefined;
  /** The actuator each running mover of this replica holds a lease of. */
  const held = new Map<string, string>();
  const release = async (actuator: string, taskId: string): Promise<void> => {
    held.delete(taskId);
    try {
      await releaseActuator(actuator, taskId);
    } catch (error) {
      logger.error('could not release an actuator lease; it is freed when this replica stops', {
        actuator,
        task_id: taskId,
        error: error instanceof Error ? error.message : String(error),
      });
    }
  };
  const gate: ActuatorGate = {
    async acquire(definition, taskId) {
      const actuator = actuatorOf(definition);
      const slots = definition.maxConcurrent ?? 1;
      const attempt = (): Promise<ActuatorClaim> =>
        acquireActuator(actuator, slots, taskId).catch((error: unknown) => {
          if (error instanceof RobotMcpKitError) throw error;
          throw new RobotMcpKitError(
            'STORE_UNAVAILABLE',
            `${definition.name} was not started: the task store did not answer the actuator lease (${String(error)}); try again`,
          );
        });
      let claim = await attempt();
      if (!claim.taken && definition.preempt) claim = await preempt(parts, claim, attempt);
      if (!claim.taken) throw new ActuatorBusyError(definition.name, claim.holders);
      held.set(taskId, actuator);
    },
    release: (definition, taskId) => release(actuatorOf(definition), taskId),
  };
  starter.setActuatorGate(gate);
  const stop = taskManager.onChange((change) => {
    const actuator = change.kind === 'finished' ? held.get(change.taskId) : undefined;
    if (actuator !== undefined) void release(actuator, change.taskId);
  });
  return () => {
    stop();
    starter.setActuatorGate(undefined);
  };
}
