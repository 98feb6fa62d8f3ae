import { type RequestHandlerExtra } from '@modelcontextprotocol/sdk/shared/protocol.js';
import {
  type CallToolResult,
  type CreateTaskResult,
  type ServerNotification,
  type ServerRequest,
  type TaskMetadata,
  type ToolAnnotations,
  type ToolExecution,
} from '@modelcontextprotocol/sdk/types.js';
import { type TaskInfo } from '@robot-mcp-kit/core';
import { type JsonSchema } from '../schema/dto-schema.js';

/** The MCP session a call arrives on. */
export interface SessionContext {
  /** Transport session id, or a generated one for transports without sessions (stdio, in-memory). */
  readonly id: string;
  /**
   * Whose calls these are across requests, when that is not the session: set on MCP 2026-07-28,
   * where every request is a session of its own, to the request's principal scope (so per-caller
   * state such as the event feed's start cursor carries from one request to the next); unset on a
   * 2025-11-25 session, which is its own caller.
   */
  readonly caller?: string;
}

/** One tool call as the handlers see it. */
export interface ToolCall {
  readonly session: SessionContext;
  readonly extra: RequestHandlerExtra<ServerRequest, ServerNotification>;
  /**
   * Per-call data for task observers (data, not callbacks): a long-running tool's start copies them
   * into the task's origin, read on the TaskManager's `started` change (native tasks put the call's
   * progress token and TTL here under their own symbol).
   */
  readonly tags?: ReadonlyMap<symbol, unknown>;
}

/** A tool as offered to clients: its listing plus a handler that never throws. */
export interface RegisteredTool {
  readonly name: string;
  readonly description: string;
  readonly title?: string;
  readonly annotations: ToolAnnotations;
  readonly inputSchema: JsonSchema;
  /**
   * Listed as the tool's `outputSchema`: then every answer that is not an error carries
   * `structuredContent` matching it (clients such as the official SDK's validate it).
   */
  readonly outputSchema?: JsonSchema;
  /** `decorated` tools come from the class; `kit` tools (get_task, ...) from the kit. */
  readonly origin: 'decorated' | 'kit';
  readonly longRunning: boolean;
  readonly actuates: boolean;
  /**
   * The tool's own OAuth scope for the per-tool check; `null`: any valid token may call it (the
   * e-stop); undefined: the default of its kind (`requiredScopesOf`).
   */
  readonly scope?: string | null;
  /** The latching e-stop or the tool that re-arms it (`estop`, `rearm` of the decorator). */
  readonly safety?: 'estop' | 'rearm';
  /** A human confirms each call first: the message template (`confirm` of the decorator). */
  readonly confirm?: string;
  /** Listed as the tool's `execution` in tools/list (e.g. `{ taskSupport: 'optional' }`). */
  readonly execution?: ToolExecution;
  call(args: unknown, call: ToolCall): Promise<CallToolResult>;
  /**
   * Long-running tools: validates the arguments and starts the task, resolving with its TaskInfo.
   * Rejects with what `call` would report as a tool error (ToolArgumentsError, TriggerValidationError,
   * ConcurrencyLimitError, ...).
   */
  start?(args: unknown, call: ToolCall): Promise<TaskInfo>;
  /**
   * Answers a task-augmented tools/call (`params.task` present, MCP tasks): starts the work and
   * returns the CreateTaskResult. Tools without it refuse task-augmented calls (-32601).
   */
  callAsTask?(args: unknown, call: ToolCall, task: TaskMetadata): Promise<CreateTaskResult>;
}
