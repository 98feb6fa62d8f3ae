import { type Logger } from '@robot-mcp-kit/core';
import { jsonGuardStage } from '../schema/json-rpc.guard.js';
import { type McpServerTelemetry } from '../telemetry/mcp-request.telemetry.js';
import { type McpNetworkTransport } from '../telemetry/mcp-semconv.names.js';
import { tracingStage } from '../telemetry/transport.tracing.js';
import { type MessageStage } from './message-pipeline.transport.js';
import { taskHandleStage } from './task-handle.stage.js';

/**
 * The kit's stages of one 2025 session (v1 SDK): the JSON guard, then tracing (a refused request
 * reaches no handler and is not traced).
 */
export function sessionStages(
  logger: Logger,
  telemetry: McpServerTelemetry,
  network: McpNetworkTransport | undefined,
  sessionIdOf: () => string | undefined,
): MessageStage[] {
  return [jsonGuardStage(logger), tracingStage(telemetry, network, sessionIdOf)];
}

/**
 * The kit's stages of one 2026-07-28 stdio connection or HTTP exchange (v2 SDK): the same guard
 * and tracing as a 2025 session, and the SEP-2663 task handle's shape.
 */
export function modernStages(
  logger: Logger,
  telemetry: McpServerTelemetry,
  network: McpNetworkTransport,
): MessageStage[] {
  return [jsonGuardStage(logger), tracingStage(telemetry, network), taskHandleStage()];
}
