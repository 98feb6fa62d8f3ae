// The CLI is a command (`robot-mcp-kit`, see bin.ts); this entry exposes only what a script needs
// to run it and the name rules it applies (which live in @robot-mcp-kit/core).
export { runCli } from './cli.program.js';
export type { CliIo } from './cli.program.js';
export { CliError } from './cli.error.js';
export type { CliErrorCode } from './cli.error.js';
export { validateToolName, validateTriggerType } from './naming.js';
