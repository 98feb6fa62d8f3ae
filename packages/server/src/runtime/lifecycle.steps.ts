import { type Logger } from '@robot-mcp-kit/core';

/** One step of an app's declared start or shutdown order: starting or stopping one named component. */
export interface LifecycleStep {
  /** The component, for the log (`task-store`, `poster`, `extension event-feed`, ...). */
  readonly component: string;
  run(): unknown;
}

/** Starts the components in the declared order; the first failure fails the start (the rest do not run). */
export async function startInOrder(steps: readonly LifecycleStep[]): Promise<void> {
  for (const step of steps) await step.run();
}

/**
 * Stops the components in the declared order. A shutdown must finish: a component that fails to
 * stop is logged (naming it) and the next one is still stopped.
 */
export async function stopInOrder(steps: readonly LifecycleStep[], logger: Logger): Promise<void> {
  for (const step of steps) {
    try {
      await step.run();
    } catch (error) {
      logger.error('a component failed to stop', {
        component: step.component,
        error: error instanceof Error ? error.message : String(error),
      });
    }
  }
}
