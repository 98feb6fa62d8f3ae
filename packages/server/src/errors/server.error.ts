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

const MAX_LISTED_PROBLEMS = 20;
const MAX_PROBLEM_CHARS = 300;

/** The problems for the message: at most 20, each cut to 300 characters (hostile input stays out). */
function summarize(problems: readonly string[]): string {
  const listed = problems
    .slice(0, MAX_LISTED_PROBLEMS)
    .map((p) => (p.length > MAX_PROBLEM_CHARS ? `${p.slice(0, MAX_PROBLEM_CHARS)}...` : p));
  if (problems.length > MAX_LISTED_PROBLEMS)
    listed.push(`and ${problems.length - MAX_LISTED_PROBLEMS} more problems`);
  return listed.join('; ');
}

/** Arguments of a tool call that fail the tool's DTO validation (`problems` keeps the full list). */
export class ToolArgumentsError extends RobotMcpKitError {
  readonly tool: string;
  readonly problems: readonly string[];

  constructor(tool: string, problems: readonly string[]) {
    super('INVALID_ARGUMENTS', `Invalid arguments for ${tool}: ${summarize(problems)}`);
    this.tool = tool;
    this.problems = problems;
  }
}
