import { type Clock, type Logger, type TaskManager } from '@robot-mcp-kit/core';
import { type AppExtension } from '../../runtime/robot-mcp-app.js';
import { type Feature } from '../../runtime/feature.types.js';
import { defineFeature } from '../../runtime/feature.define.js';
import { type TaskStoreBridge } from '../../store/task-store.bridge.js';
import { type TaskOwners } from '../../auth/task-owners.js';
import {
  type ResourceSource,
  type SessionSurface,
  type SurfaceNotifier,
} from '../../surface/session-surface.port.js';
import { TaskResourceCatalog } from '../../task-views/task-resources.catalog.js';
import { type TaskProjection } from '../../task-views/task-projection.js';
import { parseInteger } from '../feature-config.js';
import { type TaskResourcesOptions } from './task-resources.options.js';
import { withTaskLinks } from './task-link.js';
import { TaskChangePublisher } from './task-change.publisher.js';

/** Default minimum interval between two updates of one URI. */
export const DEFAULT_RESOURCE_UPDATE_INTERVAL_MS = 250;

/**
 * Serves `tasks://running` and `tasks://{task_id}` on every session surface, of either MCP
 * generation, written once: the catalog answers list, templates, read and subscribe with the
 * caller's scope (it sees only the tasks the one rule allows it; with a task store, other
 * replicas' tasks of that scope too), and one {@link TaskChangePublisher} announces the changes to
 * every session's notifier (2025: its subscriptions; 2026 stdio: the connection) and to the 2026
 * HTTP leg's `subscriptions/listen` bus.
 */
export class TaskResourceHub {
  private readonly source: ResourceSource;
  private readonly publisher: TaskChangePublisher;

  constructor(
    taskManager: TaskManager,
    /** The app's task projection, whose changes are announced. */
    projection: TaskProjection,
    clock: Clock,
    intervalMs: number,
    logger: Logger,
    /** Who may see which task (the one rule, every replica the same). */
    owners: Pick<TaskOwners, 'allows'>,
    /** With a task store (`RMK_STORE`): other replicas' tasks and their changes. */
    stored?: TaskStoreBridge,
  ) {
    const catalog = new TaskResourceCatalog(taskManager, stored, owners);
    this.source = {
      list: (caller) => catalog.list(caller.scope),
      templates: () => catalog.templates(),
      read: (uri, caller) => catalog.read(uri, caller.scope),
      notFoundMessage: (uri) => catalog.notFoundMessage(uri),
      // another replica's task may be followed: its changes arrive through the store's channel
      subscribable: (uri, caller) => catalog.knows(uri, caller.scope),
    };
    this.publisher = new TaskChangePublisher(projection, clock, intervalMs, logger, stored);
  }

  /** Serves the resources on one session and announces changes to it until it closes. */
  install(surface: SessionSurface): void {
    surface.serveResources(this.source);
    if (surface.notifier) surface.onClosed(this.publisher.attach(surface.notifier));
  }

  /** Announces changes to an app-wide target (the 2026 HTTP leg's listen bus) until stopped. */
  publishTo(notifier: SurfaceNotifier): () => void {
    return this.publisher.attach(notifier);
  }

  close(): void {
    this.publisher.close();
  }
}

/**
 * MCP resources `tasks://running` and `tasks://{task_id}` (TaskInfo JSON; a long-running tool's
 * answer links its task's resource) on both generations, with `notifications/resources/updated`
 * for the clients that follow them, coalesced per URI (`resourceUpdateIntervalMs`, default 250 ms).
 */
export function taskResourcesFeature(options: TaskResourcesOptions = {}): Feature {
  return defineFeature({
    name: 'task-resources',
    needs: ['env', 'taskManager', 'projection', 'clock', 'logger', 'owners', 'stored'],
    setup(ctx) {
      const intervalMs = parseInteger(
        {
          option: 'resourceUpdateIntervalMs',
          value: options.resourceUpdateIntervalMs,
          variable: 'RMK_RESOURCE_UPDATE_MS',
          raw: ctx.env.RMK_RESOURCE_UPDATE_MS,
        },
        { min: 0, max: 60_000, fallback: DEFAULT_RESOURCE_UPDATE_INTERVAL_MS, unit: 'milliseconds' },
      );
      const hub = new TaskResourceHub(
        ctx.taskManager,
        ctx.projection,
        ctx.clock,
        intervalMs,
        ctx.logger.child({ component: 'task-resources' }),
        ctx.owners,
        ctx.stored,
      );
      const extension: AppExtension = {
        name: 'task-resources',
        installSurface: (surface) => hub.install(surface),
        publishTo: (notifier) => hub.publishTo(notifier),
        close: () => hub.close(),
      };
      return { extension, filterTools: withTaskLinks };
    },
  });
}
