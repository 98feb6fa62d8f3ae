import { type RequestHandlerExtra } from '@modelcontextprotocol/sdk/shared/protocol.js';
import {
  type CallToolResult,
  type ServerNotification,
  type ServerRequest,
  type ToolAnnotations,
} from '@modelcontextprotocol/sdk/types.js';
import { type JsonSchema } from '../schema/dto-schema.js';

/** The MCP session a call arrives on. */
export interface SessionContext {
  /** Transport session id, or a generated one for transports without sessions (stdio, in-memory). */
  readonly id: string;
}

/** One tool call as the handlers see it. */
export interface ToolCall {
  readonly session: SessionContext;
  readonly extra: RequestHandlerExtra<ServerRequest, ServerNotification>;
}

/** A tool as offered to clients: its listing plus a handler that never throws. */
export interface RegisteredTool {
  readonly name: string;
  readonly description: string;
  readonly title?: string;
  readonly annotations: ToolAnnotations;
  readonly inputSchema: JsonSchema;
  /** `decorated` tools come from the class; `kit` tools (get_task, ...) from the kit. */
  readonly origin: 'decorated' | 'kit';
  readonly longRunning: boolean;
  readonly actuates: boolean;
  call(args: unknown, call: ToolCall): Promise<CallToolResult>;
}
