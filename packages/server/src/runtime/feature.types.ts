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
import { type TaskOwners } from '../auth/task-owners.js';
import { type TaskProjection } from '../task-views/task-projection.js';
import { type TaskStoreBridge } from '../store/task-store.bridge.js';
import { type AppExtension } from './robot-mcp-app.js';

/** What a feature can use while the bootstrapper wires one app. */
export interface FeatureContext {
  readonly definition: CapabilityServerDefinition;
  readonly instance: object;
  readonly env: NodeJS.ProcessEnv;
  readonly taskManager: TaskManager;
  /**
   * The app's one read model of its tasks (owners, last change) and the one subscriber to the
   * TaskManager's changes: a surface follows task changes through it, never `taskManager.onChange`.
   */
  readonly projection: TaskProjection;
  readonly poster: EventPoster;
  readonly starter: TaskStarter;
  /** Who started which task (session, principal), fed from the TaskManager's `started` changes. */
  readonly owners: TaskOwners;
  readonly triggers: TriggerRegistry;
  readonly schemas: DtoSchemaBuilder;
  readonly logger: Logger;
  readonly clock: Clock;
  /** The task store bridge when a store is configured (`RMK_STORE`): other replicas' tasks. */
  readonly stored?: TaskStoreBridge;
}

/**
 * What one feature contributes to one app. {@link Feature.setup} builds it once per bootstrap, and
 * the state it needs lives with it (closed over, or in the objects it creates), never in a module.
 */
export interface FeatureContribution {
  /** Extra tools (e.g. the event feed's `get_events`, `wait_for_event`). */
  readonly tools?: readonly RegisteredTool[];
  /**
   * Narrows or wraps the offered tools (read-only mode, allow lists, task support). Runs after every
   * feature's tools are in, in list order.
   */
  filterTools?(tools: readonly RegisteredTool[]): RegisteredTool[];
  /**
   * Per-session protocol surface and lifecycle hooks: installSurface and publishTo (both MCP
   * generations, through the kit's session surface), installSession (a 2025 session's v1 SDK
   * server), sessionClosed, close.
   */
  readonly extension?: AppExtension;
}

/** The name of one service of {@link FeatureContext} a feature can declare it needs. */
export type FeatureNeed = keyof FeatureContext;

/**
 * A capability of the kit (event feed, task resources, session clean-up, tool policy, native
 * tasks, or an author's own): made by a factory with typed options, written with
 * {@link defineFeature} so that `setup` receives the services in {@link needs} and nothing else —
 * typed, and at run time too. Built-ins are listed once in `builtin-features.ts` of the server's
 * features; `bootstrap()` only composes what the features contribute.
 */
export interface Feature<N extends FeatureNeed = FeatureNeed> {
  readonly name: string;
  /** The app services `setup` uses (a service not named here is not in what it receives). */
  readonly needs: readonly N[];
  /** Wires the feature into one app; throws a ConfigError for bad options or variables. */
  setup(services: Pick<FeatureContext, N>): FeatureContribution;
}
