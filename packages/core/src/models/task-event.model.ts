import { Type } from 'class-transformer';
import { IsDate, IsIn, IsInt, IsNotEmpty, IsObject, IsString, Min } from 'class-validator';
import { isoTime } from './iso-time.js';
import { type JsonObject } from './json.types.js';
import { EVENT_TYPES, type EventType, SCHEMA_VERSION } from './schema.js';

/** The wire form of a TaskEvent: exactly the spec's field names, in the spec's order. */
export interface TaskEventJson {
  schema_version: number;
  event_id: string;
  task_id: string;
  server: string;
  tool: string;
  type: EventType;
  seq: number;
  ts: string;
  payload: JsonObject;
}

/**
 * Init fields of {@link TaskEvent}: the wire form's, with `ts` a `Date` and `schema_version`
 * optional (default {@link SCHEMA_VERSION}).
 */
export type TaskEventInit = Omit<TaskEventJson, 'schema_version' | 'ts'> & {
  schema_version?: number;
  ts: Date;
};

/** One event pushed to the app: the body of an event POST (spec §3.1). */
export class TaskEvent {
  @IsInt()
  @Min(1)
  schema_version: number = SCHEMA_VERSION;

  @IsString()
  @IsNotEmpty()
  event_id!: string;

  @IsString()
  @IsNotEmpty()
  task_id!: string;

  @IsString()
  @IsNotEmpty()
  server!: string;

  @IsString()
  @IsNotEmpty()
  tool!: string;

  @IsIn(EVENT_TYPES)
  type!: EventType;

  @IsInt()
  @Min(1)
  seq!: number;

  @Type(() => Date)
  @IsDate()
  ts!: Date;

  @IsObject()
  payload!: JsonObject;

  static create(init: TaskEventInit): TaskEvent {
    const event = new TaskEvent();
    event.schema_version = init.schema_version ?? SCHEMA_VERSION;
    event.event_id = init.event_id;
    event.task_id = init.task_id;
    event.server = init.server;
    event.tool = init.tool;
    event.type = init.type;
    event.seq = init.seq;
    event.ts = init.ts;
    event.payload = init.payload;
    return event;
  }

  toJSON(): TaskEventJson {
    return {
      schema_version: this.schema_version,
      event_id: this.event_id,
      task_id: this.task_id,
      server: this.server,
      tool: this.tool,
      type: this.type,
      seq: this.seq,
      ts: isoTime(this.ts),
      payload: this.payload,
    };
  }
}
