import {
  type Attributes,
  type Context,
  context,
  defaultTextMapGetter,
  isSpanContextValid,
  type Histogram,
  metrics,
  propagation,
  type Span,
  SpanKind,
  SpanStatusCode,
  trace,
  type Tracer,
} from '@opentelemetry/api';
import {
  CANCELLED,
  EXECUTE_TOOL,
  INSTRUMENTATION_SCOPE,
  MCP_ATTR,
  MCP_DURATION_BUCKETS,
  MCP_METRIC,
  type McpNetworkTransport,
  TOOL_ERROR,
} from './mcp-semconv.names.js';

/** What the server knows about one incoming MCP request when it arrives. */
export interface McpRequestFacts {
  readonly method: string;
  readonly id?: string | number;
  readonly params?: unknown;
  /** The 2025 session's id (streamable HTTP, SSE); absent on stdio and on the session-less 2026 leg. */
  readonly sessionId?: string;
  readonly protocolVersion?: string;
  readonly network?: McpNetworkTransport;
}

/** How a request ended: its JSON-RPC result, its JSON-RPC error code, or no answer at all. */
export type McpOutcome =
  { readonly result: unknown } | { readonly errorCode: number } | { readonly cancelled: true };

/** One request in flight: run its handler in {@link context}, then {@link end} it once. */
export interface McpRequestScope {
  /** The request's server span as the active span (its parent from `params._meta` or the caller). */
  readonly context: Context;
  /** Ends the span and records `mcp.server.operation.duration`; later calls do nothing. */
  end(outcome: McpOutcome): void;
}

/** A 2025 session's clock: {@link closed} records `mcp.server.session.duration` once. */
export interface McpSessionClock {
  closed(): void;
}

/**
 * The MCP server telemetry of one app, per the OpenTelemetry semantic conventions for MCP: a SERVER
 * span per request and the `mcp.server.operation.duration` / `mcp.server.session.duration`
 * histograms. Written on `@opentelemetry/api` only: with no SDK registered the tracer and meter are
 * the API's no-ops, and no attributes are built for a span that does not record. Create it after
 * the SDK is registered (the API hands out a no-op meter before that): the app creates one.
 */
export class McpServerTelemetry {
  private readonly tracer: Tracer;
  private readonly operationDuration: Histogram;
  private readonly sessionDuration: Histogram;

  constructor() {
    this.tracer = trace.getTracer(INSTRUMENTATION_SCOPE);
    const meter = metrics.getMeter(INSTRUMENTATION_SCOPE);
    const advice = { explicitBucketBoundaries: [...MCP_DURATION_BUCKETS] };
    this.operationDuration = meter.createHistogram(MCP_METRIC.serverOperationDuration, {
      description: 'MCP request duration as observed on the server, from receipt until the answer is sent',
      unit: 's',
      advice,
    });
    this.sessionDuration = meter.createHistogram(MCP_METRIC.serverSessionDuration, {
      description: 'Duration of an MCP session as observed on the server',
      unit: 's',
      advice,
    });
  }

  /** Starts the server span of one request (kind SERVER, named `{mcp.method.name} {target}`). */
  start(facts: McpRequestFacts): McpRequestScope {
    const started = performance.now();
    const target = targetOf(facts);
    const parent = parentContext(facts.params);
    const span = this.tracer.startSpan(
      target === undefined ? facts.method : `${facts.method} ${target}`,
      { kind: SpanKind.SERVER },
      parent,
    );
    const common = commonAttributes(facts, target);
    const recording = span.isRecording();
    if (recording) span.setAttributes({ ...common, ...spanOnlyAttributes(facts) });
    let ended = false;
    return {
      // A span that neither records nor carries a valid trace (no SDK registered) is not made the
      // active one: nothing could read it, and the request runs in its parent context as it is.
      context: recording || isSpanContextValid(span.spanContext()) ? trace.setSpan(parent, span) : parent,
      end: (outcome) => {
        if (ended) return;
        ended = true;
        const errorType = errorTypeOf(outcome);
        const attributes =
          errorType === undefined ? common : { ...common, ...errorAttributes(outcome, errorType) };
        if (errorType !== undefined) finishFailed(span, outcome, errorType);
        span.end();
        this.operationDuration.record((performance.now() - started) / 1000, attributes);
      },
    };
  }

  /** Starts a 2025 session's clock (at initialize). */
  sessionStarted(
    network: McpNetworkTransport | undefined,
    protocolVersion: () => string | undefined,
  ): McpSessionClock {
    const started = performance.now();
    let closed = false;
    return {
      closed: () => {
        if (closed) return;
        closed = true;
        const version = protocolVersion();
        this.sessionDuration.record((performance.now() - started) / 1000, {
          ...(network ? { [MCP_ATTR.networkTransport]: network } : {}),
          ...(version ? { [MCP_ATTR.protocolVersion]: version } : {}),
        });
      },
    };
  }
}

/**
 * Runs `handler` as the request `facts` describe: inside its server span (the active span for
 * everything the handler starts, the task manager included), ending the span with the handler's
 * result, or with the JSON-RPC code of what it threw (rethrown).
 */
export async function traced<T>(
  telemetry: McpServerTelemetry,
  facts: McpRequestFacts,
  handler: () => Promise<T>,
): Promise<T> {
  const scope = telemetry.start(facts);
  try {
    const result = await context.with(scope.context, handler);
    scope.end({ result });
    return result;
  } catch (err) {
    scope.end({ errorCode: jsonRpcCodeOf(err) });
    throw err;
  }
}

/** The JSON-RPC code an SDK answers a thrown error with (its own `code`, else -32603 internal error). */
export function jsonRpcCodeOf(err: unknown): number {
  const code = (err as { code?: unknown } | null)?.code;
  return typeof code === 'number' && Number.isInteger(code) ? code : -32603;
}

/** The parent of a request's span: the trace context in `params._meta` when sent, else the active one. */
function parentContext(params: unknown): Context {
  const active = context.active();
  const meta = (params as { _meta?: unknown } | null | undefined)?._meta;
  if (meta === null || typeof meta !== 'object') return active;
  return propagation.extract(active, meta as Record<string, unknown>, defaultTextMapGetter);
}

function paramOf(params: unknown, key: string): string | undefined {
  const value = (params as Record<string, unknown> | null | undefined)?.[key];
  return typeof value === 'string' ? value : undefined;
}

/** The low-cardinality target of the span name: the tool or prompt name. */
function targetOf(facts: McpRequestFacts): string | undefined {
  if (facts.method === 'tools/call' || facts.method === 'prompts/get') return paramOf(facts.params, 'name');
  return undefined;
}

/** Attributes of both the span and the duration metric (low cardinality). */
function commonAttributes(facts: McpRequestFacts, target: string | undefined): Attributes {
  const attributes: Attributes = { [MCP_ATTR.methodName]: facts.method };
  if (facts.method === 'tools/call') {
    attributes[MCP_ATTR.genAiOperationName] = EXECUTE_TOOL;
    if (target !== undefined) attributes[MCP_ATTR.genAiToolName] = target;
  } else if (facts.method === 'prompts/get' && target !== undefined) {
    attributes[MCP_ATTR.genAiPromptName] = target;
  }
  if (facts.protocolVersion) attributes[MCP_ATTR.protocolVersion] = facts.protocolVersion;
  if (facts.network) attributes[MCP_ATTR.networkTransport] = facts.network;
  return attributes;
}

/** Attributes of the span only (per request or per session: not for metrics). */
function spanOnlyAttributes(facts: McpRequestFacts): Attributes {
  const attributes: Attributes = {};
  if (facts.id !== undefined) attributes[MCP_ATTR.jsonrpcRequestId] = String(facts.id);
  if (facts.sessionId) attributes[MCP_ATTR.sessionId] = facts.sessionId;
  const uri = facts.method.startsWith('resources/') ? paramOf(facts.params, 'uri') : undefined;
  if (uri !== undefined) attributes[MCP_ATTR.resourceUri] = uri;
  return attributes;
}

/** `error.type` of an outcome: the JSON-RPC code, the kit's error code of a tool error, or none. */
function errorTypeOf(outcome: McpOutcome): string | undefined {
  if ('cancelled' in outcome) return CANCELLED;
  if ('errorCode' in outcome) return String(outcome.errorCode);
  const result = outcome.result as { isError?: unknown; structuredContent?: { error_code?: unknown } } | null;
  if (result?.isError !== true) return undefined;
  const code = result.structuredContent?.error_code;
  return typeof code === 'string' && code.length > 0 && code.length <= 64 ? code : TOOL_ERROR;
}

function errorAttributes(outcome: McpOutcome, errorType: string): Attributes {
  return 'errorCode' in outcome
    ? { [MCP_ATTR.errorType]: errorType, [MCP_ATTR.rpcResponseStatusCode]: errorType }
    : { [MCP_ATTR.errorType]: errorType };
}

function finishFailed(span: Span, outcome: McpOutcome, errorType: string): void {
  if (!span.isRecording()) return;
  span.setAttributes(errorAttributes(outcome, errorType));
  span.setStatus({ code: SpanStatusCode.ERROR, message: errorType });
}
