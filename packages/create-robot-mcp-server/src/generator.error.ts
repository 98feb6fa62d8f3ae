import { RobotMcpKitError } from '@robot-mcp-kit/core';

/**
 * A problem the generator reports to the user (bad name, busy directory, missing tarball, ...).
 * Its message names the input that is wrong and says how to fix it; the CLI prints it and exits 1.
 */
export class GeneratorError extends RobotMcpKitError {
  /** The flag or input the problem is about, e.g. `--name`. */
  readonly input: string;

  constructor(code: GeneratorErrorCode, input: string, message: string) {
    super(code, `${input}: ${message}`);
    this.input = input;
  }
}

export type GeneratorErrorCode =
  | 'GENERATOR_USAGE'
  | 'GENERATOR_INVALID_NAME'
  | 'GENERATOR_TARGET_NOT_EMPTY'
  | 'GENERATOR_KIT_MISSING'
  | 'GENERATOR_TEMPLATE';
