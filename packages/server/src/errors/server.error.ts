import { RobotMcpKitError } from '@robot-mcp-kit/core';

/**
 * A decoration mistake found at bootstrap: a duplicate tool name, a long-running method that is not
 * async, a missing DTO, an unknown trigger type. The message says where and how to fix it.
 */
export class DecorationError extends RobotMcpKitError {
  constructor(where: string, problem: string, fix: string) {
    super('DECORATION_INVALID', `${where}: ${problem}. Fix: ${fix}`);
  }
}

/** Arguments of a tool call that fail the tool's DTO validation. */
export class ToolArgumentsError extends RobotMcpKitError {
  readonly tool: string;
  readonly problems: readonly string[];

  constructor(tool: string, problems: readonly string[]) {
    super('INVALID_ARGUMENTS', `Invalid arguments for ${tool}: ${problems.join('; ')}`);
    this.tool = tool;
    this.problems = problems;
  }
}
