/**
 * The OpenTelemetry names the server emits for MCP requests and sessions, from the semantic
 * conventions for MCP (`gen-ai/mcp`, status Development) — the one list of them in the server.
 * `packages/server/test/telemetry/` pins them against a copy of the conventions and against
 * `@opentelemetry/semantic-conventions/incubating` (the library itself depends on the API only).
 */
export const MCP_ATTR = {
  methodName: 'mcp.method.name',
  sessionId: 'mcp.session.id',
  protocolVersion: 'mcp.protocol.version',
  resourceUri: 'mcp.resource.uri',
  jsonrpcRequestId: 'jsonrpc.request.id',
  genAiToolName: 'gen_ai.tool.name',
  genAiPromptName: 'gen_ai.prompt.name',
  genAiOperationName: 'gen_ai.operation.name',
  errorType: 'error.type',
  rpcResponseStatusCode: 'rpc.response.status_code',
  networkTransport: 'network.transport',
} as const;

/** The conventions' metrics the server records (histograms, in seconds). */
export const MCP_METRIC = {
  serverOperationDuration: 'mcp.server.operation.duration',
  serverSessionDuration: 'mcp.server.session.duration',
} as const;

/** `gen_ai.operation.name` of a tools/call. */
export const EXECUTE_TOOL = 'execute_tool';
/** `error.type` of a tools/call answered with `isError: true` and no kit error code. */
export const TOOL_ERROR = 'tool_error';
/** `error.type` of a request the client cancelled (or whose session closed) before it was answered. */
export const CANCELLED = 'cancelled';
/** `network.transport` values: stdio is a pipe, both HTTP transports run on TCP. */
export type McpNetworkTransport = 'pipe' | 'tcp';

/** Keys of `params._meta` the conventions carry trace context in (W3C Trace Context and Baggage). */
export const TRACE_META_KEYS = ['traceparent', 'tracestate', 'baggage'] as const;

/** The instrumentation scope of the server's spans and metrics. */
export const INSTRUMENTATION_SCOPE = '@robot-mcp-kit/server';

/**
 * Bucket boundaries the conventions advise for `mcp.*.duration` histograms (seconds), given to the
 * SDK as the instrument's advice.
 */
export const MCP_DURATION_BUCKETS = [0.01, 0.02, 0.05, 0.1, 0.2, 0.5, 1, 2, 5, 10, 30, 60, 120, 300] as const;
