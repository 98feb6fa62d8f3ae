import { type Logger, RobotMcpKitError, type TaskManager } from '@robot-mcp-kit/core';
import { type TaskStore } from '@robot-mcp-kit/core/store';
import { type LongRunningToolDefinition } from '../metadata/definitions.types.js';
import { ActuatorBusyError, type ActuatorGate, type TaskStarter } from '../tools/task-starter.js';

/** What the actuator leases are wired to. */
export interface ActuatorLeaseParts {
  readonly taskManager: TaskManager;
  readonly starter: TaskStarter;
  readonly store: TaskStore;
  readonly logger: Logger;
}

/** The actuator of a mover: its tool name (one lease per tool, `maxConcurrent` slots). */
function actuatorOf(definition: LongRunningToolDefinition): string {
  return definition.name;
}

/**
 * Makes `maxConcurrent` of actuating long-running tools hold across the replicas sharing `store`:
 * each start takes one of the tool's `maxConcurrent` actuator leases in the store (refused with
 * `ACTUATOR_BUSY`, naming the holders, when every one is held on any replica), and the lease is
 * released when the task ends. Returns the function that unwires it. A store without actuator
 * leases leaves the rule per process.
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
      const claim = await acquireActuator(actuator, slots, taskId).catch((error: unknown) => {
        if (error instanceof RobotMcpKitError) throw error;
        throw new RobotMcpKitError(
          'STORE_UNAVAILABLE',
          `${definition.name} was not started: the task store did not answer the actuator lease (${String(error)}); try again`,
        );
      });
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
