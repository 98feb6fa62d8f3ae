/**
 * Base class of every error the kit throws. Each error has a stable `code` (for programs) and a
 * message that says what was wrong and how to fix it (for people).
 */
export class RobotMcpKitError extends Error {
  readonly code: string;

  constructor(code: string, message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = new.target.name;
    this.code = code;
  }
}

/** Invalid configuration (environment variables or options); thrown at start-up, never later. */
export class ConfigError extends RobotMcpKitError {
  /** The variable or option that is wrong, e.g. `RVC_EVENT_SECRET`. */
  readonly variable: string;

  constructor(variable: string, message: string) {
    super('CONFIG_INVALID', `${variable}: ${message}`);
    this.variable = variable;
  }
}

/** One field that failed validation, with every constraint it broke. */
export interface FieldIssue {
  /** Dotted path of the field, e.g. `payload`, `failure.error_code`, `triggers[0].seconds`. */
  readonly field: string;
  /** Human-readable constraint messages, e.g. `seq must be an integer number`. */
  readonly problems: readonly string[];
}

/** Inbound data that does not match the wire contract (a TaskEvent, TaskInfo, ...). */
export class ContractValidationError extends RobotMcpKitError {
  readonly issues: readonly FieldIssue[];

  constructor(what: string, issues: readonly FieldIssue[]) {
    super('CONTRACT_INVALID', `invalid ${what}: ${formatIssues(issues)}`);
    this.issues = issues;
  }
}

/** A trigger dict that cannot be used: not an object, no `type`, or bad fields for a known type. */
export class TriggerValidationError extends RobotMcpKitError {
  readonly issues: readonly FieldIssue[];

  constructor(issues: readonly FieldIssue[]) {
    super('TRIGGER_INVALID', `invalid trigger: ${formatIssues(issues)}`);
    this.issues = issues;
  }
}

/** Formats field issues as `field: problem; problem | field: problem`. */
export function formatIssues(issues: readonly FieldIssue[]): string {
  return issues.map((i) => `${i.field}: ${i.problems.join('; ')}`).join(' | ');
}
