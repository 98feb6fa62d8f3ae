import { IsInt, IsNotEmpty, IsNumber, IsOptional, IsString, Max, Min } from 'class-validator';
import { JSONSchema } from 'class-validator-jsonschema';
import { type CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import {
  type Clock,
  EVENT_TYPES,
  isTerminalState,
  RobotMcpKitError,
  type TaskManager,
  type TimerHandle,
} from '@robot-mcp-kit/core';
import { shortText } from '@robot-mcp-kit/core/rules';
import { ToolArgumentsError } from '../../errors/server.error.js';
import { Tool } from '../../decorators/tool.decorator.js';
import { type DtoSchemaBuilder } from '../../schema/dto-schema.js';
import { type ToolCallContext } from '../../tools/decorated-tools.factory.js';
import { createKitTools, kitJsonResult, readOnlyKitTool } from '../../tools/kit-tools.factory.js';
import { type RegisteredTool, type ToolCall } from '../../tools/registered-tool.js';
import { kitToolResult } from '../../tools/tool-results.js';
import { type TaskOwners } from '../../auth/task-owners.js';
import { type EventFeed } from './event-feed.js';

/**
 * The longest `wait_for_event` in seconds unless the server allows more (`maxWaitS`,
 * `RMK_MAX_WAIT_S`): under the 60 s after which common clients give up on a request (the SDK
 * clients by default, LangChain's adapters even when they send a progress token), with room for a
 * slow network. Wait again with `since` to wait longer.
 */
export const DEFAULT_MAX_WAIT_S = 45;
/** The most `maxWaitS` / `RMK_MAX_WAIT_S` may allow. */
export const MAX_WAIT_LIMIT_S = 3600;
/** `timeout_s` when omitted (the server's maximum when that is lower). */
export const DEFAULT_WAIT_S = 25;
/** `limit` of get_events when omitted, and its maximum. */
export const DEFAULT_EVENTS_LIMIT = 100;
export const MAX_EVENTS_LIMIT = 500;
/** Interval of the progress notifications a wait sends when the request asked for progress. */
const HEARTBEAT_MS = 10_000;

export class GetEventsArgs {
  @JSONSchema({
    description:
      'A cursor from an earlier get_events or wait_for_event: only entries after it are returned. ' +
      'Omit to read from the oldest entry the feed holds.',
  })
  @IsOptional()
  @IsInt()
  @Min(0)
  since?: number | null;

  @JSONSchema({ description: `At most this many entries (default ${DEFAULT_EVENTS_LIMIT})` })
  @IsOptional()
  @IsInt()
  @Min(1)
  @Max(MAX_EVENTS_LIMIT)
  limit?: number | null;
}

export class WaitForEventArgs {
  @JSONSchema({
    description:
      `What to wait for: an event type (${EVENT_TYPES.join(', ')}), "cancelled", or a trigger type such as ` +
      '"zone_entered" or "eta_below" (matches trigger_fired events of that trigger). Any entry when omitted.',
  })
  @IsOptional()
  @IsString()
  @IsNotEmpty()
  type?: string | null;

  @JSONSchema({
    description:
      'Only entries of this task. The wait also ends when the task ends (done, failed or cancelled).',
  })
  @IsOptional()
  @IsString()
  @IsNotEmpty()
  task_id?: string | null;

  @JSONSchema({
    description:
      `How long to wait, in seconds (default ${DEFAULT_WAIT_S}, at most ${DEFAULT_MAX_WAIT_S} unless the ` +
      'server allows more). To wait longer, call again with since set to the returned cursor.',
  })
  @IsOptional()
  @IsNumber({ allowNaN: false, allowInfinity: false })
  @Min(0)
  @Max(MAX_WAIT_LIMIT_S, {
    message: `timeout_s must be at most ${MAX_WAIT_LIMIT_S} seconds; to wait longer, call again with since set to the returned cursor`,
  })
  timeout_s?: number | null;

  @JSONSchema({
    description:
      'Consider only entries after this cursor (feed_cursor of a TaskInfo, or the cursor a wait returned). ' +
      "Omit to start before the first entry of task_id's task, or without task_id at this session's last " +
      'call that started a task (so events fired since then are not missed), or else at the newest entry.',
  })
  @IsOptional()
  @IsInt()
  @Min(0)
  since?: number | null;
}

/** What the feed tools need. */
export interface FeedToolsDeps {
  readonly feed: EventFeed;
  readonly taskManager: TaskManager;
  readonly schemas: DtoSchemaBuilder;
  readonly clock: Clock;
  /** Trigger types `type` may name. */
  readonly triggerTypes: readonly string[];
  /**
   * The cursor recorded when this session (or sessionless caller) last started a task, consumed by
   * the first wait after it.
   */
  takeStartCursor(sessionOrCaller: string): number | undefined;
  /** The cursor right before the task's first entry: where a wait for it starts without `since`. */
  taskStartCursor(taskId: string): number;
  /** The longest wait, in seconds (`maxWaitS`, `RMK_MAX_WAIT_S`). */
  readonly maxWaitS: number;
  /** The one visibility rule: a caller reads only the entries of tasks its scope may see. */
  readonly owners: Pick<TaskOwners, 'scopeOfSession' | 'allows'>;
}

const SUFFIX =
  'Use it to follow long-running tasks when no callback URL receives pushed events. Entries: ' +
  '{"cursor", "kind": "event", "event": TaskEvent}, {"cursor", "kind": "cancelled", "task_id", "tool", "ts"}, ' +
  '{"cursor", "kind": "unrecognised_triggers", "task_id", "tool", "types", "known_trigger_types", "ts"} (trigger ' +
  'types of a task that will never fire), and ' +
  '{"cursor", "kind": "lost", "count"} for entries overwritten before they were read.';

const GET_EVENTS =
  'Returns {"entries": [...], "cursor": N, "more": bool}: the event feed entries after the cursor `since`, ' +
  'oldest first. Pass the returned cursor as since next time to read every entry in turn.';
const WAIT_FOR_EVENT =
  'Waits until a matching entry arrives and returns {"timeout": false, "entry": {...}, "cursor": N}; on timeout ' +
  'returns {"timeout": true, "cursor": <where the wait started>}; when the task of task_id had already ended ' +
  'returns {"timeout": false, "task_ended": TaskInfo, "cursor": N}.';
const READ_TITLE = 'Read the event feed';
const WAIT_TITLE = 'Wait for an event';

/**
 * `get_events` and `wait_for_event`: the event feed for agents without a callback URL, declared
 * with `@Tool` like an author's tools (built by `createKitTools`).
 */
export class EventFeedTools {
  private readonly knownTypes: ReadonlySet<string>;

  constructor(private readonly deps: FeedToolsDeps) {
    this.knownTypes = new Set<string>([
      ...EVENT_TYPES,
      'cancelled',
      'unrecognised_triggers',
      ...deps.triggerTypes,
    ]);
  }

  @Tool(readOnlyKitTool('get_events', `${GET_EVENTS} ${SUFFIX}`, READ_TITLE))
  getEvents(args: GetEventsArgs, _ctx: ToolCallContext, call: ToolCall): Promise<CallToolResult> {
    return kitToolResult(async () => {
      const limit = args.limit ?? DEFAULT_EVENTS_LIMIT;
      return kitJsonResult(this.deps.feed.read(args.since ?? undefined, limit, this.visibleTo(call)));
    });
  }

  /** Which tasks' entries the caller may read (`TaskOwners.allows` for its session's scope). */
  private visibleTo(call: ToolCall): (taskId: string) => boolean {
    const { owners } = this.deps;
    const scope = owners.scopeOfSession(call.session.id);
    return (taskId) => owners.allows(scope, taskId);
  }

  @Tool(readOnlyKitTool('wait_for_event', `${WAIT_FOR_EVENT} ${SUFFIX}`, WAIT_TITLE))
  waitForEvent(args: WaitForEventArgs, _ctx: ToolCallContext, call: ToolCall): Promise<CallToolResult> {
    return kitToolResult(async () => kitJsonResult(await this.wait(args, call)));
  }

  private async wait(args: WaitForEventArgs, call: ToolCall): Promise<object> {
    const { deps } = this;
    const type = args.type ?? undefined;
    const taskId = args.task_id ?? undefined;
    const visible = this.visibleTo(call);
    this.checkWait(type, taskId, visible);
    const start =
      args.since ??
      (taskId !== undefined
        ? deps.taskStartCursor(taskId)
        : (deps.takeStartCursor(call.session.caller ?? call.session.id) ?? deps.feed.newest));
    const timeoutS = args.timeout_s ?? Math.min(DEFAULT_WAIT_S, deps.maxWaitS);
    if (timeoutS > deps.maxWaitS) {
      throw new ToolArgumentsError('wait_for_event', [
        `timeout_s: at most ${deps.maxWaitS} seconds on this server (most clients give up on a request ` +
          'after 60 s); to wait longer, call again with since set to the returned cursor',
      ]);
    }
    const stopHeartbeat = heartbeat(call, deps.clock, timeoutS);
    try {
      const outcome = await deps.feed.wait({
        start,
        filter: { type, taskId, visible },
        timeoutMs: Math.round(timeoutS * 1000),
        signal: call.extra.signal,
        alreadyEnded: () => {
          const state = taskId === undefined ? undefined : deps.taskManager.get(taskId)?.state;
          return state !== undefined && isTerminalState(state);
        },
      });
      switch (outcome.kind) {
        case 'entry':
          return { timeout: false, entry: outcome.entry, cursor: outcome.entry.cursor };
        case 'timeout':
          return { timeout: true, cursor: start };
        case 'ended':
          return { timeout: false, task_ended: deps.taskManager.get(taskId ?? '')?.toJSON(), cursor: start };
        default:
          throw new WaitEndedError(outcome.kind);
      }
    } finally {
      stopHeartbeat();
    }
  }

  /** Refuses a `type` nobody emits and a `task_id` this server does not know or the caller may not see. */
  private checkWait(
    type: string | undefined,
    taskId: string | undefined,
    visible: (taskId: string) => boolean,
  ): void {
    if (type !== undefined && !this.knownTypes.has(type)) {
      throw new ToolArgumentsError('wait_for_event', [
        `type: "${shortText(type, 60)}" is not an event or trigger type; use one of ${[...this.knownTypes].join(', ')}`,
      ]);
    }
    if (taskId !== undefined && (!this.deps.taskManager.get(taskId) || !visible(taskId))) {
      throw new ToolArgumentsError('wait_for_event', [
        `task_id: no task "${shortText(taskId, 60)}" on this server; list_tasks shows the known tasks`,
      ]);
    }
  }
}

/** `get_events` and `wait_for_event` of one app, built through the authors' definitions path. */
export function createEventFeedTools(deps: FeedToolsDeps): RegisteredTool[] {
  return createKitTools(new EventFeedTools(deps), {
    schemas: deps.schemas,
    taskManager: deps.taskManager,
    logger: deps.taskManager.logger,
  });
}

/** The wait ended without an answer: the request was cancelled, the session closed or the server stops. */
export class WaitEndedError extends RobotMcpKitError {
  constructor(reason: 'aborted' | 'closed') {
    super(
      'WAIT_ENDED',
      reason === 'aborted'
        ? 'wait_for_event was cancelled (the request was cancelled or the session closed)'
        : 'wait_for_event ended because the server is shutting down',
    );
  }
}

/** Sends a progress notification every 10 s while waiting, when the caller asked for progress. */
function heartbeat(call: ToolCall, clock: Clock, timeoutS: number): () => void {
  const token = call.extra._meta?.progressToken;
  if (token === undefined) return () => undefined;
  const started = clock.now();
  let timer: TimerHandle | undefined;
  const tick = (): void => {
    const waitedS = Math.round((clock.now() - started) / 1000);
    call.extra
      .sendNotification({
        method: 'notifications/progress',
        params: { progressToken: token, progress: waitedS, total: timeoutS, message: 'waiting for an event' },
      })
      .catch(() => undefined);
    timer = clock.setTimeout(tick, HEARTBEAT_MS);
  };
  timer = clock.setTimeout(tick, HEARTBEAT_MS);
  return () => {
    if (timer !== undefined) clock.clearTimeout(timer);
  };
}
