import { Type } from 'class-transformer';
import {
  IsArray,
  IsDate,
  IsIn,
  IsNotEmpty,
  IsNumber,
  IsObject,
  IsOptional,
  IsString,
  ValidateNested,
} from 'class-validator';
import { isoTime } from './iso-time.js';
import { type JsonObject } from './json.types.js';
import { TASK_STATES, type TaskState } from './schema.js';
import { TaskFailure } from './task-failure.model.js';

/** Init fields of {@link TaskInfo}; unset optional fields become `null` / `[]` on the wire. */
export interface TaskInfoInit {
  task_id: string;
  server: string;
  tool: string;
  state: TaskState;
  created_at: Date;
  updated_at: Date;
  triggers?: readonly JsonObject[];
  est_duration_s?: number | null;
  progress?: JsonObject | null;
  result?: JsonObject | null;
  failure?: TaskFailure | null;
  body_running?: boolean;
  overran_grace?: boolean;
}

/** The wire form of a TaskInfo: every field present, `null` where unset. */
export interface TaskInfoJson {
  task_id: string;
  server: string;
  tool: string;
  state: TaskState;
  created_at: string;
  updated_at: string;
  triggers: JsonObject[];
  est_duration_s: number | null;
  progress: JsonObject | null;
  result: JsonObject | null;
  failure: ReturnType<TaskFailure['toJSON']> | null;
  /** Only on a `cancelled` task whose body has not stopped yet (absent once it stopped). */
  body_running?: true;
  /** Only with `body_running`: the body is still running after the cancel grace (default 5 s). */
  overran_grace?: true;
}

/** A task as the reconciliation tools report it (spec §4.1). */
export class TaskInfo {
  @IsString()
  @IsNotEmpty()
  task_id!: string;

  @IsString()
  server!: string;

  @IsString()
  tool!: string;

  @IsIn(TASK_STATES)
  state!: TaskState;

  @Type(() => Date)
  @IsDate()
  created_at!: Date;

  @Type(() => Date)
  @IsDate()
  updated_at!: Date;

  @IsArray()
  @IsObject({ each: true })
  triggers: JsonObject[] = [];

  @IsOptional()
  @IsNumber({ allowNaN: false, allowInfinity: false })
  est_duration_s: number | null = null;

  @IsOptional()
  @IsObject()
  progress: JsonObject | null = null;

  @IsOptional()
  @IsObject()
  result: JsonObject | null = null;

  @IsOptional()
  @ValidateNested()
  @Type(() => TaskFailure)
  failure: TaskFailure | null = null;

  /**
   * Set only on a `cancelled` task whose body has not stopped yet: the state is already `cancelled`
   * (spec §3.3) but the work may still be moving the robot. Absent (undefined) once the body exited.
   */
  @IsOptional()
  @IsIn([true])
  body_running?: true;

  /** Set with `body_running` once the body outlived the cancel grace: it ignores cancellation. */
  @IsOptional()
  @IsIn([true])
  overran_grace?: true;

  static create(init: TaskInfoInit): TaskInfo {
    const info = new TaskInfo();
    info.task_id = init.task_id;
    info.server = init.server;
    info.tool = init.tool;
    info.state = init.state;
    info.created_at = init.created_at;
    info.updated_at = init.updated_at;
    info.triggers = [...(init.triggers ?? [])];
    info.est_duration_s = init.est_duration_s ?? null;
    info.progress = init.progress ?? null;
    info.result = init.result ?? null;
    info.failure = init.failure ?? null;
    if (init.body_running) {
      info.body_running = true;
      if (init.overran_grace) info.overran_grace = true;
    }
    return info;
  }

  toJSON(): TaskInfoJson {
    return {
      task_id: this.task_id,
      server: this.server,
      tool: this.tool,
      state: this.state,
      created_at: isoTime(this.created_at),
      updated_at: isoTime(this.updated_at),
      triggers: this.triggers,
      est_duration_s: this.est_duration_s,
      progress: this.progress,
      result: this.result,
      failure: this.failure ? this.failure.toJSON() : null,
      ...(this.body_running ? { body_running: true as const } : {}),
      ...(this.body_running && this.overran_grace ? { overran_grace: true as const } : {}),
    };
  }
}
