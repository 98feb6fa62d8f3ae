import { type McpServerFactory } from '@modelcontextprotocol/server';
import { serveStdio } from '@modelcontextprotocol/server/stdio';
import { type Logger } from '@robot-mcp-kit/core';

/** A running MCP 2026-07-28 stdio server. */
export interface ModernStdio {
  close(): Promise<void>;
}

/**
 * Serves MCP 2026-07-28 on stdin/stdout with the v2 SDK (`serveStdio(factory, { legacy: 'reject' })`):
 * used once the first line on stdin carried the 2026 envelope; a 2025 client's `initialize` never
 * gets here (the v1 session takes the connection).
 */
export function serveModernStdio(factory: McpServerFactory, logger: Logger): ModernStdio {
  return serveStdio(factory, {
    legacy: 'reject',
    onerror: (error) => logger.debug('MCP 2026-07-28 stdio error', { error: error.message }),
  });
}
