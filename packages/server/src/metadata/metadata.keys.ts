/** Every metadata key the decorators record under, in one place. */
export const METADATA_KEYS = {
  capabilityServer: Symbol.for('robot-mcp-kit:capability-server'),
  tool: Symbol.for('robot-mcp-kit:tool'),
  longRunningTool: Symbol.for('robot-mcp-kit:long-running-tool'),
  trigger: Symbol.for('robot-mcp-kit:trigger'),
} as const;

export type MetadataKey = (typeof METADATA_KEYS)[keyof typeof METADATA_KEYS];
