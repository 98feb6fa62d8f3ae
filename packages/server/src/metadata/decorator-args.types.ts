import { type TriggerEvaluator } from '@robot-mcp-kit/core';

/** MCP tool annotations (hints for clients), as the protocol defines them. */
export interface ToolAnnotationsArgs {
  title?: string;
  readOnlyHint?: boolean;
  destructiveHint?: boolean;
  idempotentHint?: boolean;
  openWorldHint?: boolean;
}

/** A DTO class: its properties carry class-validator decorators. */
export type DtoClass = new () => object;

/** Arguments of `@CapabilityServer(...)`. */
export interface CapabilityServerArgs {
  /** MCP server name; also the events' `server` and the source of task id prefixes (`nav-7f3a2b`). */
  name: string;
  version: string;
  /** A short display name for clients (`serverInfo.title`), e.g. "Navigation". */
  title?: string;
  description?: string;
  /** Instructions sent to the client at initialization (how an LLM should use this server). */
  instructions?: string;
}

/** Arguments shared by `@Tool` and `@LongRunningTool`. */
export interface ToolArgsBase {
  /** Tool name; defaults to the method name in snake_case. */
  name?: string;
  /** What the tool does, for the LLM. */
  description: string;
  /**
   * A short display name for clients (the tool's top-level `title`, e.g. "Scan the room"); when
   * omitted, `annotations.title` is listed as the title.
   */
  title?: string;
  annotations?: ToolAnnotationsArgs;
  /**
   * The tool moves, speaks or shows something in the world. Actuating tools default to
   * `destructiveHint: true` and are hidden in read-only mode.
   */
  actuates?: boolean;
  /**
   * The OAuth scope a token needs to call this tool, when the server checks scopes per tool
   * (`RMK_AUTH_ISSUER`, `auth.scopes`). Default: `robot:actuate` (`RMK_SCOPE_ACTUATE`) for an actuating
   * tool, `robot:read` (`RMK_SCOPE_READ`) for every other.
   */
  scope?: string;
  /**
   * This tool is the latching e-stop: calling it latches the e-stop first (on every replica sharing
   * the task store) and cancels the running actuating tasks, then runs the body. Until a `rearm` tool
   * is called every actuating tool answers `ESTOPPED`. Any valid token may call it.
   */
  estop?: boolean;
  /**
   * Ask a human before this tool starts anything: `true`, or a message template whose `{field}`s
   * are filled from the arguments (e.g. `'Open door {door}?'`). On MCP 2025-11-25 the server sends
   * `elicitation/create`; a decline, no answer within `RMK_CONFIRM_TIMEOUT_S`, or a client that cannot
   * answer (no elicitation capability, the 2026-07-28 leg) starts nothing. tools/list marks the
   * tool with `_meta["io.robot-mcp-kit/confirm"]: true`.
   */
  confirm?: boolean | string;
  /** This tool releases the latched e-stop (after its body succeeds); it needs the scope `robot:rearm`. */
  rearm?: boolean;
  /** The DTO class of the arguments; by default the type of the method's first parameter. */
  args?: DtoClass;
}

/** Arguments of `@Tool(...)`: a plain request/response tool. */
export interface ToolArgs extends ToolArgsBase {
  /**
   * The DTO class of what the method returns. The tool is listed with an `outputSchema` built from
   * it, and each answer's `structuredContent` (the returned object) is checked against it: an answer
   * that does not match is sent as a tool error naming each field (docs/authoring.md, "Typed results").
   */
  result?: DtoClass;
}

/** Arguments of `@LongRunningTool(...)`: a tool that starts a task and returns its TaskInfo at once. */
export interface LongRunningToolArgs extends ToolArgsBase {
  /** Expected duration in seconds (TaskInfo.est_duration_s); a number or a function of the arguments. */
  estDurationS?: number | ((args: never) => number | undefined);
  /** At most this many tasks of this tool running at once. */
  maxConcurrent?: number;
  /** Over the limit, cancel the oldest running task of this tool instead of refusing the call. */
  preempt?: boolean;
  /**
   * Cancel the task when the session that started it goes away (client disconnect, DELETE, idle
   * reaping), e.g. a hold-to-move teleop. Default false: tasks outlive their session and run until
   * they end, `cancel_task` or server shutdown.
   */
  cancelOnDisconnect?: boolean;
}

/** Arguments of `@Trigger(type, ...)`. */
export interface TriggerArgs {
  /** Required when the type is not a registered plugin: declares a new trigger type. */
  description?: string;
  /** Field checks for a newly declared type (see `TriggerEvaluator.validate`). */
  validate?: TriggerEvaluator['validate'];
}
