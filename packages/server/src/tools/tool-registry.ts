import { type Server } from '@modelcontextprotocol/sdk/server/index.js';
import {
  CallToolRequestSchema,
  ErrorCode,
  ListToolsRequestSchema,
  McpError,
  type Tool,
} from '@modelcontextprotocol/sdk/types.js';
import { ConfigError } from '@robot-mcp-kit/core';
import { type RegisteredTool, type SessionContext } from './registered-tool.js';

const ORIGIN: Record<RegisteredTool['origin'], string> = {
  decorated: "a server class's tool",
  kit: "the kit's or a feature's tool",
};

/**
 * The tools one server offers. It answers tools/list and tools/call on each session's SDK server
 * (the SDK's McpServer only takes zod schemas; ours come from class-validator DTOs). A
 * task-augmented tools/call (`params.task`, MCP tasks) goes to the tool's `callAsTask`.
 */
export class ToolRegistry {
  private readonly byName = new Map<string, RegisteredTool>();
  private readonly listing: Tool[];

  /** @throws ConfigError when two tools share a name (a feature's tool and an author's, say). */
  constructor(tools: readonly RegisteredTool[]) {
    for (const tool of tools) {
      const other = this.byName.get(tool.name);
      if (other) {
        throw new ConfigError(
          'tools',
          `tool name "${tool.name}" is offered twice (${ORIGIN[other.origin]} and ${ORIGIN[tool.origin]}); ` +
            "a feature's tools need names of their own: add them to KIT_TOOL_NAMES in @robot-mcp-kit/core, " +
            'which authors and the generator cannot take',
        );
      }
      this.byName.set(tool.name, tool);
    }
    this.listing = tools.map(listingOf);
  }

  get tools(): readonly RegisteredTool[] {
    return [...this.byName.values()];
  }

  get(name: string): RegisteredTool | undefined {
    return this.byName.get(name);
  }

  /** The tools/list entries (built once). */
  get definitions(): readonly Tool[] {
    return this.listing;
  }

  /** The error message of a tools/call naming no tool (both protocol generations send it). */
  unknownToolMessage(name: string): string {
    return `Tool ${shortName(name)} not found; available: ${[...this.byName.keys()].join(', ')}`;
  }

  /** Installs the tools/list and tools/call handlers on one session's low-level server. */
  install(server: Server, session: SessionContext): void {
    server.registerCapabilities({ tools: { listChanged: false } });
    server.setRequestHandler(ListToolsRequestSchema, () => ({ tools: this.listing }));
    server.setRequestHandler(CallToolRequestSchema, async (request, extra) => {
      const tool = this.byName.get(request.params.name);
      if (!tool) {
        throw new McpError(ErrorCode.InvalidParams, this.unknownToolMessage(request.params.name));
      }
      const { task } = request.params;
      if (task === undefined) return tool.call(request.params.arguments, { session, extra });
      if (!tool.callAsTask) {
        throw new McpError(
          ErrorCode.MethodNotFound,
          `Tool ${tool.name} cannot run as a task (its execution.taskSupport is "forbidden"); ` +
            'call it without the "task" field',
        );
      }
      return tool.callAsTask(request.params.arguments, { session, extra }, task);
    });
  }
}

/**
 * One tools/list entry. The top-level `title` (what clients display) falls back to
 * `annotations.title`, which older servers and authors set instead.
 */
function listingOf(tool: RegisteredTool): Tool {
  const title = tool.title ?? tool.annotations.title;
  return {
    name: tool.name,
    ...(title ? { title } : {}),
    description: tool.description,
    inputSchema: tool.inputSchema as Tool['inputSchema'],
    ...(tool.outputSchema ? { outputSchema: tool.outputSchema as Tool['outputSchema'] } : {}),
    annotations: tool.annotations,
    ...(tool.execution ? { execution: tool.execution } : {}),
    ...(tool.confirm !== undefined ? { _meta: { [CONFIRM_META]: true } } : {}),
  };
}

/** The `_meta` key of tools/list that marks a tool asking a human before it starts. */
export const CONFIRM_META = 'io.robot-mcp-kit/confirm';

/** A requested tool name for an error message, cut to 100 characters (hostile input stays out). */
function shortName(name: string): string {
  return name.length > 100 ? `${name.slice(0, 100)}... (${name.length} characters)` : name;
}
