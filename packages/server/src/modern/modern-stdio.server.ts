import { type McpServerFactory } from '@modelcontextprotocol/server';
import { serveStdio, StdioServerTransport } from '@modelcontextprotocol/server/stdio';
import { type Logger } from '@robot-mcp-kit/core';
import { type MessageStage, PipelineTransport } from '../transports/message-pipeline.transport.js';

/** A running MCP 2026-07-28 stdio server. */
export interface ModernStdio {
  close(): Promise<void>;
}

type StdioTransport = NonNullable<Parameters<typeof serveStdio>[1]>['transport'];

/**
 * Serves MCP 2026-07-28 on stdin/stdout with the v2 SDK (`serveStdio(factory, { legacy: 'reject' })`):
 * used once the first line on stdin carried the 2026 envelope; a 2025 client's `initialize` never
 * gets here (the v1 session takes the connection). The SDK's stdio transport is handed over
 * inside the kit's {@link PipelineTransport} (serveStdio's `transport` option), so the kit's
 * `stages` see every message of the connection.
 */
export function serveModernStdio(
  factory: McpServerFactory,
  logger: Logger,
  stages: readonly MessageStage[] = [],
): ModernStdio {
  const stdio = new StdioServerTransport() as unknown as ConstructorParameters<typeof PipelineTransport>[0];
  return serveStdio(factory, {
    legacy: 'reject',
    transport: new PipelineTransport(stdio, stages) as unknown as StdioTransport,
    onerror: (error) => logger.debug('MCP 2026-07-28 stdio error', { error: error.message }),
  });
}
