import { type JSONRPCMessage, type RequestId } from '@modelcontextprotocol/sdk/types.js';
import { context } from '@opentelemetry/api';
import { type MessageStage } from '../transports/message-pipeline.transport.js';
import {
  type McpRequestScope,
  type McpServerTelemetry,
  type McpSessionClock,
} from './mcp-request.telemetry.js';
import { type McpNetworkTransport } from './mcp-semconv.names.js';

/** Most requests of one connection traced at once; past it a request runs untraced (memory stays bounded). */
export const MAX_TRACED_IN_FLIGHT = 10_000;

/**
 * The 2026-07-28 envelope's protocol version key in `params._meta` (the v2 SDK's
 * `PROTOCOL_VERSION_META_KEY`, spelled here so a 2025 session does not load the v2 SDK).
 */
const PROTOCOL_VERSION_META_KEY = 'io.modelcontextprotocol/protocolVersion';

/**
 * The tracing of one connection (a 2025 session, a 2026-07-28 stdio connection or HTTP exchange),
 * as a {@link MessageStage} below the SDK: every incoming request starts its server span and is
 * handed on inside it (the SDK dispatches it on a promise chain started there, so the handler runs
 * with the span active); the response sent for that id ends it. The protocol version is the
 * request's 2026-07-28 envelope claim, else the one the initialize result negotiated; a request
 * the client cancels (`notifications/cancelled`) or that is open when the connection closes ends
 * as `cancelled`. Put it after the JSON guard (whose refusals reach no handler and are not traced).
 */
export function tracingStage(
  telemetry: McpServerTelemetry,
  network: McpNetworkTransport | undefined,
  sessionIdOf: () => string | undefined = () => undefined,
): MessageStage {
  const inFlight = new Map<RequestId, McpRequestScope>();
  let protocolVersion: string | undefined;
  let session: McpSessionClock | undefined;
  let initializeId: RequestId | undefined;
  const answered = (id: RequestId, outcome: Parameters<McpRequestScope['end']>[0]): void => {
    const scope = inFlight.get(id);
    if (!scope) return;
    inFlight.delete(id);
    scope.end(outcome);
  };
  return {
    inbound(message, next) {
      if (!('method' in message)) return next();
      if (!('id' in message) || inFlight.size >= MAX_TRACED_IN_FLIGHT) {
        if (message.method === 'notifications/cancelled') {
          const id = (message.params as { requestId?: RequestId } | undefined)?.requestId;
          if (id !== undefined) answered(id, { cancelled: true });
        }
        return next();
      }
      if (message.method === 'initialize' && !session) {
        initializeId = message.id;
        session = telemetry.sessionStarted(network, () => protocolVersion);
      }
      const sessionId = sessionIdOf();
      const version = claimedVersion(message.params) ?? protocolVersion;
      const scope = telemetry.start({
        method: message.method,
        id: message.id,
        params: message.params,
        ...(sessionId !== undefined ? { sessionId } : {}),
        ...(version !== undefined ? { protocolVersion: version } : {}),
        ...(network ? { network } : {}),
      });
      inFlight.get(message.id)?.end({ cancelled: true });
      inFlight.set(message.id, scope);
      if (scope.context === context.active()) next();
      else context.with(scope.context, next);
    },
    outbound(message: JSONRPCMessage) {
      if ('result' in message) {
        if (message.id === initializeId) {
          const version = (message.result as { protocolVersion?: unknown }).protocolVersion;
          if (typeof version === 'string') protocolVersion ??= version;
        }
        answered(message.id, { result: message.result });
      } else if ('error' in message && message.id !== undefined) {
        answered(message.id, { errorCode: message.error.code });
      }
      return message;
    },
    closed() {
      for (const scope of inFlight.values()) scope.end({ cancelled: true });
      inFlight.clear();
      session?.closed();
    },
  };
}

/** The 2026-07-28 envelope's protocol version in `params._meta`, if the request carries one. */
function claimedVersion(params: unknown): string | undefined {
  const meta = (params as { _meta?: Record<string, unknown> } | undefined)?._meta;
  const version = meta?.[PROTOCOL_VERSION_META_KEY];
  return typeof version === 'string' ? version : undefined;
}
