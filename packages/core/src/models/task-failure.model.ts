import { IsArray, IsBoolean, IsNotEmpty, IsString } from 'class-validator';

/** Init fields of {@link TaskFailure}; `recoverable` defaults to true, `suggestions` to []. */
export interface TaskFailureInit {
  error_code: string;
  message: string;
  recoverable?: boolean;
  suggestions?: readonly string[];
}

/**
 * Why a task failed, written for the planner LLM: a machine code, one or two sentences of text
 * and recovery hints (`["ask_reception", "retry_after_s:300"]`).
 */
export class TaskFailure {
  @IsString()
  @IsNotEmpty()
  error_code!: string;

  @IsString()
  message!: string;

  @IsBoolean()
  recoverable: boolean = true;

  @IsArray()
  @IsString({ each: true })
  suggestions: string[] = [];

  static create(init: TaskFailureInit): TaskFailure {
    const failure = new TaskFailure();
    failure.error_code = init.error_code;
    failure.message = init.message;
    failure.recoverable = init.recoverable ?? true;
    failure.suggestions = [...(init.suggestions ?? [])];
    return failure;
  }

  /** The wire form, fields in the spec's order. */
  toJSON(): { error_code: string; message: string; recoverable: boolean; suggestions: string[] } {
    return {
      error_code: this.error_code,
      message: this.message,
      recoverable: this.recoverable,
      suggestions: this.suggestions,
    };
  }
}
