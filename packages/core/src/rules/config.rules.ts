/**
 * The MCP transports a kit server serves (`MCP_TRANSPORT`): the server reads it, the CLI's doctor
 * checks it, the generator offers it. Streamable HTTP before SSE, which the MCP spec deprecates.
 */
export const MCP_TRANSPORTS = Object.freeze(['stdio', 'streamable-http', 'sse'] as const);
export type McpTransport = (typeof MCP_TRANSPORTS)[number];

export function isMcpTransport(value: string): value is McpTransport {
  return (MCP_TRANSPORTS as readonly string[]).includes(value);
}
