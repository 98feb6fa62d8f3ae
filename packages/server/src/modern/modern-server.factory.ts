import { randomUUID } from 'node:crypto';
import { type RequestHandlerExtra } from '@modelcontextprotocol/sdk/shared/protocol.js';
import { type ServerNotification, type ServerRequest } from '@modelcontextprotocol/sdk/types.js';
import {
  type CallToolResult,
  CLIENT_CAPABILITIES_META_KEY,
  type McpServerFactory,
  ProtocolError,
  ProtocolErrorCode,
  Server,
  type ServerContext,
  type Tool,
} from '@modelcontextprotocol/server';
import { type TaskOwners } from '../auth/task-owners.js';
import { type CapabilityServerDefinition } from '../metadata/definitions.types.js';
import { type SessionContext } from '../tools/registered-tool.js';
import { type ToolRegistry } from '../tools/tool-registry.js';
import { INPUT_ROUND, type InputRound } from '../runtime/input-round.js';
import { type SurfaceFeature } from '../surface/session-surface.port.js';
import { type SdkV2SessionSurface } from '../surface/sdk-v2.session-surface.js';
import { createdTaskResult, declaresTasks, taskCallerOf } from '../surface/sdk-v2.task-wire.js';

/** What the 2026-07-28 leg serves: the same tool registry as the 2025 sessions. */
export interface ModernServerParts {
  readonly definition: CapabilityServerDefinition;
  readonly registry: ToolRegistry;
  readonly owners: TaskOwners;
  /**
   * What the features install on each server's session surface (the `tasks://` resources, the
   * native tasks' SEP-2663 methods, ...).
   */
  readonly features?: readonly SurfaceFeature[];
}

/**
 * The factory of the MCP 2026-07-28 leg: one v2 SDK `Server` per request (2026-07-28 has no
 * sessions), answering tools/list and tools/call from the same {@link ToolRegistry} the 2025
 * sessions use: same names, JSON schemas, annotations, validation and errors. The SDK's `Server` is
 * used as it comes (no method overridden): the kit's tracing, JSON guard and task-handle shape run
 * below it, as the message stages of the connection or HTTP exchange (`modernStages`). Tools are listed
 * without `execution` (that field belongs to the 2025 task protocol, SEP-1686); a long-running tool
 * answers its plain `task_id` result, as it does for 2025 clients that do not ask for a task.
 *
 * No v1 SDK object reaches v2 code and no v2 object reaches the tools: the handler builds the
 * kit's own call context (signal, `_meta`, a notification sender) from the v2 request context.
 */
export function modernServerFactory(
  parts: ModernServerParts,
  /** The session surface of one server: one HTTP request's, or one stdio connection's. */
  surfaceOf: (server: Server) => SdkV2SessionSurface,
): McpServerFactory {
  const { server: info } = parts.definition;
  const tools = parts.registry.definitions.map(
    ({ execution: _execution, ...tool }) => tool,
  ) as unknown as Tool[];
  return () => {
    const server = new Server(
      {
        name: info.name,
        version: info.version,
        ...(info.title ? { title: info.title } : {}),
        ...(info.description ? { description: info.description } : {}),
      },
      {
        capabilities: { tools: { listChanged: false } },
        instructions: info.instructions,
      },
    );
    const surface = surfaceOf(server);
    for (const feature of parts.features ?? []) feature.installSurface?.(surface);
    const tasks = surface.taskStarts; // the native tasks feature's SEP-2663 methods, when installed
    server.setRequestHandler('tools/list', () => ({ tools }));
    server.setRequestHandler('tools/call', (request, ctx) => callTool(parts, tasks, request.params, ctx));
    return server;
  };
}

async function callTool(
  parts: ModernServerParts,
  tasks: SdkV2SessionSurface['taskStarts'],
  params: { name: string; arguments?: Record<string, unknown> },
  ctx: ServerContext,
): Promise<CallToolResult> {
  const tool = parts.registry.get(params.name);
  if (!tool)
    throw new ProtocolError(ProtocolErrorCode.InvalidParams, parts.registry.unknownToolMessage(params.name));
  // Each 2026-07-28 request stands alone: it is its own "session", bound to the request's principal
  // for as long as the call runs (a task started by it records that principal).
  const id = `mcp2026-${randomUUID()}`;
  parts.owners.bindSession(id, ctx.http?.authInfo);
  const session: SessionContext = { id, caller: `scope:${parts.owners.scopeOfSession(id)}` };
  const call = { session, extra: callExtra(ctx, id), tags: new Map([[INPUT_ROUND, inputRoundOf(ctx)]]) };
  try {
    if (tasks && tool.start && declaresTasks(ctx)) {
      // The caller takes tasks: answer a task handle. A start that fails is answered exactly as
      // the plain call answers it (the same tool error; nothing was started).
      const started = await tool.start(params.arguments, call).catch(() => undefined);
      if (started) {
        const view = await tasks.create(started, taskCallerOf(ctx));
        return createdTaskResult(view) as unknown as CallToolResult;
      }
    }
    return (await tool.call(params.arguments, call)) as CallToolResult;
  } finally {
    parts.owners.forgetSession(id);
  }
}

/** The multi-round-trip material of this request (SEP-2322), for the tools that ask the client. */
function inputRoundOf(ctx: ServerContext): InputRound {
  const envelope = ctx.mcpReq.envelope as Record<string, unknown> | undefined;
  const capabilities = envelope?.[CLIENT_CAPABILITIES_META_KEY] as { elicitation?: unknown } | undefined;
  const elicitation = capabilities?.elicitation;
  // A bare `elicitation: {}` means form mode; a client that declares modes must list `form`.
  const canElicit =
    typeof elicitation === 'object' &&
    elicitation !== null &&
    ('form' in elicitation || !('url' in elicitation));
  const state = ctx.mcpReq.requestState<unknown>();
  return {
    canElicit,
    ...(ctx.mcpReq.inputResponses ? { responses: ctx.mcpReq.inputResponses } : {}),
    ...(typeof state === 'string' ? { state } : {}),
  };
}

/** The kit's view of one call (what the tools read: signal, `_meta`, progress notifications). */
function callExtra(
  ctx: ServerContext,
  sessionId: string,
): RequestHandlerExtra<ServerRequest, ServerNotification> {
  const extra = {
    signal: ctx.mcpReq.signal,
    requestId: ctx.mcpReq.id,
    sessionId,
    _meta: ctx.mcpReq._meta,
    sendNotification: (notification: ServerNotification) =>
      ctx.mcpReq.notify(notification as Parameters<ServerContext['mcpReq']['notify']>[0]),
    sendRequest: () =>
      Promise.reject(
        new Error('server-to-client requests are not available to tools on the MCP 2026-07-28 leg'),
      ),
  };
  return extra as unknown as RequestHandlerExtra<ServerRequest, ServerNotification>;
}
