import { type TaskInfo } from '@robot-mcp-kit/core';
import { type Feature, type FeatureContext } from '../../runtime/feature.types.js';
import { defineFeature } from '../../runtime/feature.define.js';
import { type AppExtension } from '../../runtime/robot-mcp-app.js';
import { type SessionContext } from '../../tools/registered-tool.js';
import { checkBoolean, parseFlag, parseInteger } from '../feature-config.js';
import { type EventFeedOptions } from './event-feed.options.js';
import { EventFeed } from './event-feed.js';
import { createEventFeedTools, DEFAULT_MAX_WAIT_S, MAX_WAIT_LIMIT_S } from './event-feed.tools.js';
import { withFeedCursor } from './feed-cursor.wrapper.js';
import { unrecognisedTriggerTypes } from '../../rules/trigger-types.rules.js';

/** The app services this feature uses (all it receives). */
const NEEDS = ['env', 'clock', 'projection', 'triggers', 'taskManager', 'schemas', 'owners'] as const;
type FeedServices = Pick<FeatureContext, (typeof NEEDS)[number]>;

/** Entries the feed keeps when neither `eventBuffer` nor `RMK_EVENT_BUFFER` says otherwise. */
export const DEFAULT_EVENT_BUFFER = 500;

/** Resolved event feed settings. */
export interface EventFeedConfig {
  readonly enabled: boolean;
  readonly capacity: number;
  /** The longest `wait_for_event`, in seconds. */
  readonly maxWaitS: number;
}

/**
 * Reads `eventFeed` / `RMK_EVENT_FEED` (default on), `eventBuffer` / `RMK_EVENT_BUFFER`
 * (default 500, from 1 to 100000) and `maxWaitS` / `RMK_MAX_WAIT_S` (default 45, from 1 to 3600).
 * Options win.
 * @throws ConfigError naming the option or variable
 */
export function resolveEventFeedConfig(
  env: NodeJS.ProcessEnv,
  options: EventFeedOptions = {},
): EventFeedConfig {
  const enabled =
    checkBoolean('eventFeed', options.eventFeed) ?? parseFlag('RMK_EVENT_FEED', env.RMK_EVENT_FEED) ?? true;
  const capacity = parseInteger(
    {
      option: 'eventBuffer',
      value: options.eventBuffer,
      variable: 'RMK_EVENT_BUFFER',
      raw: env.RMK_EVENT_BUFFER,
    },
    { min: 1, max: 100_000, fallback: DEFAULT_EVENT_BUFFER, unit: 'entries' },
  );
  const maxWaitS = parseInteger(
    { option: 'maxWaitS', value: options.maxWaitS, variable: 'RMK_MAX_WAIT_S', raw: env.RMK_MAX_WAIT_S },
    { min: 1, max: MAX_WAIT_LIMIT_S, fallback: DEFAULT_MAX_WAIT_S, unit: 'seconds' },
  );
  return { enabled, capacity, maxWaitS };
}

/**
 * How many tasks' start cursors the feed remembers (insertion order, oldest forgotten first): a
 * task id and a number each, under 1 MB in all. A wait for a forgotten task starts at the oldest
 * entry held.
 */
export const MAX_TASK_START_CURSORS = 10_000;

/** The feed of one app, the per-session cursors recorded at task start, and each task's start. */
class FeedState {
  readonly startCursors = new Map<string, number>();
  private readonly taskStarts = new Map<string, number>();
  private readonly stops: (() => void)[] = [];

  constructor(
    readonly feed: EventFeed,
    ctx: FeedServices,
  ) {
    this.stops.push(
      ctx.projection.subscribe((change) => {
        if (change.kind === 'event' && change.event) {
          feed.appendEvent(change.event);
        } else if (change.kind === 'started') {
          this.started(change.task, change.origin?.sessionId, ctx);
        } else if (change.kind === 'finished' && change.state === 'cancelled') {
          const { task } = change;
          feed.appendCancelled(task.task_id, task.tool, task.updated_at.getTime());
        }
      }),
    );
  }

  /** A task started (before any of its events): its session's cursor, and unknown trigger types. */
  private started(info: TaskInfo, sessionId: string | undefined, ctx: FeedServices): void {
    if (sessionId !== undefined) this.startCursors.set(sessionId, this.feed.newest);
    this.taskStarts.set(info.task_id, this.feed.newest);
    if (this.taskStarts.size > MAX_TASK_START_CURSORS) {
      this.taskStarts.delete(this.taskStarts.keys().next().value!);
    }
    if (info.triggers.length === 0) return;
    const known = ctx.triggers.types();
    const unknown = unrecognisedTriggerTypes(info.triggers, known);
    if (unknown.length > 0) {
      this.feed.appendUnrecognisedTriggers(
        info.task_id,
        info.tool,
        unknown,
        known,
        info.created_at.getTime(),
      );
    }
  }

  /**
   * The cursor right before `taskId`'s first entry (the feed's newest when it started): a wait for
   * the task reads every entry of it from there. The oldest held when the task is not remembered.
   */
  taskStartCursor(taskId: string): number {
    const start = this.taskStarts.get(taskId);
    return start === undefined ? this.feed.oldest - 1 : start;
  }

  /** The task's start cursor, when the feed saw it start (for the TaskInfo a tool returns). */
  knownTaskStart(taskId: string): number | undefined {
    return this.taskStarts.get(taskId);
  }

  takeStartCursor(sessionId: string): number | undefined {
    const cursor = this.startCursors.get(sessionId);
    this.startCursors.delete(sessionId);
    return cursor;
  }

  /**
   * A start on a sessionless request (MCP 2026-07-28) ended: the cursor recorded for the request's
   * own session becomes its caller's, read by that caller's next wait (a session that is its own
   * caller keeps it until it closes).
   */
  callEnded(session: SessionContext): void {
    if (session.caller === undefined) return;
    const cursor = this.takeStartCursor(session.id);
    if (cursor !== undefined) this.startCursors.set(session.caller, cursor);
  }

  close(): void {
    for (const stop of this.stops.splice(0)) stop();
    this.feed.close();
  }
}

/** The event feed's session hooks; `feed` is what {@link eventFeedOf} finds. */
export interface EventFeedExtension extends AppExtension {
  readonly name: 'event-feed';
  readonly feed: EventFeed;
}

/** The event feed of an app bootstrapped with the event feed feature, if it is on. */
export function eventFeedOf(app: {
  extension(name: string): AppExtension | undefined;
}): EventFeed | undefined {
  return (app.extension('event-feed') as EventFeedExtension | undefined)?.feed;
}

/**
 * The event feed for agents without a callback URL: every event of the TaskManager's tasks (and
 * every cancellation) goes into a bounded ring (`RMK_EVENT_BUFFER`, default 500) read with `get_events`
 * and `wait_for_event`. A wait for a task (`task_id`) without `since` starts right before that
 * task's first entry, on every protocol and transport (a 2026-07-28 request is a session of its
 * own); one without either starts at the cursor recorded when this session last started a task, so
 * an event fired between the start and the wait is not missed. The TaskInfo of a long-running
 * tool's answer and of get_task carries `feed_cursor`, the cursor to pass as `since`.
 */
export function eventFeedFeature(options: EventFeedOptions = {}): Feature {
  return defineFeature({
    name: 'event-feed',
    needs: NEEDS,
    setup(ctx) {
      const config = resolveEventFeedConfig(ctx.env, options);
      if (!config.enabled) return {};
      const state = new FeedState(new EventFeed(config.capacity, ctx.clock), ctx);
      const extension: EventFeedExtension = {
        name: 'event-feed',
        feed: state.feed,
        sessionClosed(session) {
          state.startCursors.delete(session.id);
        },
        close() {
          state.close();
        },
      };
      const tools = createEventFeedTools({
        feed: state.feed,
        taskManager: ctx.taskManager,
        schemas: ctx.schemas,
        clock: ctx.clock,
        triggerTypes: ctx.triggers.list().map((t) => t.type),
        takeStartCursor: (sessionId) => state.takeStartCursor(sessionId),
        taskStartCursor: (taskId) => state.taskStartCursor(taskId),
        maxWaitS: config.maxWaitS,
        owners: ctx.owners,
      });
      return {
        tools,
        extension,
        filterTools: (offered) =>
          offered.map((tool) =>
            withFeedCursor(
              tool,
              (taskId) => state.knownTaskStart(taskId),
              (session) => state.callEnded(session),
            ),
          ),
      };
    },
  });
}
