import { RobotMcpKitError } from '@robot-mcp-kit/core';

export type CliErrorCode =
  | 'CLI_USAGE'
  | 'CLI_INVALID_NAME'
  | 'CLI_NOT_A_PROJECT'
  | 'CLI_SERVER_NOT_FOUND'
  | 'CLI_CONFLICT'
  | 'CLI_CANNOT_EDIT';

/**
 * A problem the `robot-mcp-kit` CLI reports to the user. The message names what is wrong (an
 * argument, a file) and how to fix it; the CLI prints it and exits 1, having changed nothing.
 */
export class CliError extends RobotMcpKitError {
  /** The argument or file the problem is about, e.g. `<name>` or `src/main.ts`. */
  readonly subject: string;

  constructor(code: CliErrorCode, subject: string, message: string) {
    super(code, `${subject}: ${message}`);
    this.subject = subject;
  }
}
