import { type Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import { type JSONRPCMessage, type RequestId } from '@modelcontextprotocol/sdk/types.js';
import { context } from '@opentelemetry/api';
import { accessorOf } from '../schema/json-rpc.guard.js';
import {
  type McpRequestScope,
  type McpServerTelemetry,
  type McpSessionClock,
} from './mcp-request.telemetry.js';
import { type McpNetworkTransport } from './mcp-semconv.names.js';

type OnMessage = NonNullable<Transport['onmessage']>;

/** Most requests of one session traced at once; past it a request runs untraced (memory stays bounded). */
export const MAX_TRACED_IN_FLIGHT = 10_000;

/** The tracing of one 2025 session's transport; {@link closed} ends what is still in flight. */
export interface TracedTransport {
  closed(): void;
}

/**
 * Traces one 2025 session (v1 SDK) below the SDK, at the transport: every incoming request starts
 * its server span and is handed to the SDK inside it (the SDK dispatches it on a promise chain
 * started there, so the handler runs with the span active); the response the SDK sends for that
 * id ends it. The negotiated protocol version is read from the initialize result; a request the
 * client cancels (`notifications/cancelled`) or that is open when the session closes ends as
 * `cancelled`. Call after `guardTransport` (its refusals reach no handler and are not traced) and
 * before the SDK connects the transport.
 */
export function traceTransport(
  transport: Transport,
  telemetry: McpServerTelemetry,
  network: McpNetworkTransport | undefined,
): TracedTransport {
  const inFlight = new Map<RequestId, McpRequestScope>();
  let protocolVersion: string | undefined;
  let session: McpSessionClock | undefined;
  let initializeId: RequestId | undefined;
  const tracedOf =
    (inner: OnMessage): OnMessage =>
    (message, extra) => {
      if ('method' in message && 'id' in message && inFlight.size < MAX_TRACED_IN_FLIGHT) {
        if (message.method === 'initialize' && !session) {
          initializeId = message.id;
          session = telemetry.sessionStarted(network, () => protocolVersion);
        }
        const scope = telemetry.start({
          method: message.method,
          id: message.id,
          params: message.params,
          ...(transport.sessionId !== undefined ? { sessionId: transport.sessionId } : {}),
          ...(protocolVersion !== undefined ? { protocolVersion } : {}),
          ...(network ? { network } : {}),
        });
        inFlight.get(message.id)?.end({ cancelled: true });
        inFlight.set(message.id, scope);
        context.with(scope.context, () => inner(message, extra));
        return;
      }
      if ('method' in message && message.method === 'notifications/cancelled') {
        const id = (message.params as { requestId?: RequestId } | undefined)?.requestId;
        if (id !== undefined) answered(id, { cancelled: true });
      }
      inner(message, extra);
    };
  const answered = (id: RequestId, outcome: Parameters<McpRequestScope['end']>[0]): void => {
    const scope = inFlight.get(id);
    if (!scope) return;
    inFlight.delete(id);
    scope.end(outcome);
  };
  // The handler the SDK installs is wrapped once and handed down: to the accessor below (the
  // guard's, a forwarding transport's), or kept here for a transport with a plain property.
  const below = accessorOf(transport, 'onmessage');
  let kept: OnMessage | undefined;
  Object.defineProperty(transport, 'onmessage', {
    configurable: true,
    enumerable: true,
    get: () => (below?.get ? (below.get.call(transport) as OnMessage | undefined) : kept),
    set: (handler: OnMessage | undefined) => {
      const wrapped = handler ? tracedOf(handler) : undefined;
      if (below?.set) below.set.call(transport, wrapped);
      else kept = wrapped;
    },
  });
  const send = transport.send.bind(transport);
  transport.send = (message: JSONRPCMessage, options) => {
    if ('result' in message) {
      const version = (message.result as { protocolVersion?: unknown }).protocolVersion;
      if (message.id === initializeId && typeof version === 'string') protocolVersion ??= version;
      answered(message.id, { result: message.result });
    } else if ('error' in message && message.id !== undefined) {
      answered(message.id, { errorCode: message.error.code });
    }
    return send(message, options);
  };
  return {
    closed() {
      for (const scope of inFlight.values()) scope.end({ cancelled: true });
      inFlight.clear();
      session?.closed();
    },
  };
}
