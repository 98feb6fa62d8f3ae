import {
  type Clock,
  type EventPoster,
  type Logger,
  type TaskManager,
  type TriggerRegistry,
} from '@robot-mcp-kit/core';
import { type CapabilityServerDefinition } from '../metadata/definitions.types.js';
import { type DtoSchemaBuilder } from '../schema/dto-schema.js';
import { type RegisteredTool } from '../tools/registered-tool.js';
import { type TaskStarter } from '../tools/task-starter.js';
import { type TaskStoreBridge } from './task-store.bridge.js';
import { type AppExtension } from './robot-mcp-app.js';

/** What a feature can see while the bootstrapper wires a server. */
export interface FeatureContext {
  readonly definition: CapabilityServerDefinition;
  readonly instance: object;
  readonly env: NodeJS.ProcessEnv;
  readonly taskManager: TaskManager;
  readonly poster: EventPoster;
  readonly starter: TaskStarter;
  readonly triggers: TriggerRegistry;
  readonly schemas: DtoSchemaBuilder;
  readonly logger: Logger;
  readonly clock: Clock;
  /** The options given to bootstrap(), for feature-specific settings. */
  readonly options: Readonly<Record<string, unknown>>;
  /** The task store bridge when a store is configured (`RMK_STORE`): other replicas' tasks. */
  readonly stored?: TaskStoreBridge;
}

/**
 * A built-in capability of the kit wired at bootstrap: it may add tools, filter the offered
 * tools, and install protocol surface on every session. Each feature lives in its own file under
 * `features/`; the bootstrapper applies them in order.
 */
export interface Feature {
  readonly name: string;
  /** Extra tools (e.g. an event feed). */
  tools?(ctx: FeatureContext): RegisteredTool[];
  /** Narrows the offered tools (read-only mode, allow lists). Runs after every feature's tools(). */
  filterTools?(tools: readonly RegisteredTool[], ctx: FeatureContext): RegisteredTool[];
  /** Per-session protocol surface and lifecycle hooks. */
  extension?(ctx: FeatureContext): AppExtension | undefined;
}
