import { EVENT_TYPES, TASK_STATES } from '@robot-mcp-kit/core';
import { type JsonSchema } from '../schema/dto-schema.js';

/*
 * The outputSchema of each kit tool: the JSON its structuredContent holds (the same JSON as its text
 * content). The shapes are those of core's wire types (TaskInfoJson, TaskEventJson, the feed entries);
 * objects stay open (no `additionalProperties: false`) so that a field added later does not make an
 * older client reject the answer. `test/kit-tools.output.test.ts` checks every answer against them with
 * the official SDK client's own validation.
 */

const nullable = (schema: JsonSchema): JsonSchema => ({ anyOf: [schema, { type: 'null' }] });
const text: JsonSchema = { type: 'string' };
const time: JsonSchema = { type: 'string', description: 'ISO 8601 time' };
const object: JsonSchema = { type: 'object' };

const TASK_FAILURE: JsonSchema = {
  type: 'object',
  properties: {
    error_code: text,
    message: text,
    recoverable: { type: 'boolean' },
    suggestions: { type: 'array', items: text },
  },
  required: ['error_code', 'message', 'recoverable', 'suggestions'],
};

/** A TaskInfo as get_task, list_tasks and a task start return it (spec §4.1). */
export const TASK_INFO_SCHEMA: JsonSchema = {
  type: 'object',
  properties: {
    task_id: text,
    server: text,
    tool: text,
    state: { type: 'string', enum: [...TASK_STATES] },
    created_at: time,
    updated_at: time,
    triggers: { type: 'array', items: object },
    est_duration_s: nullable({ type: 'number' }),
    progress: nullable(object),
    result: nullable(object),
    failure: nullable(TASK_FAILURE),
    body_running: { const: true },
    overran_grace: { const: true },
    feed_cursor: { type: 'integer' },
  },
  required: ['task_id', 'server', 'tool', 'state', 'created_at', 'updated_at'],
};

const NOT_FOUND: JsonSchema = {
  type: 'object',
  properties: { error: { const: 'not_found' } },
  required: ['error'],
};

const TASK_EVENT: JsonSchema = {
  type: 'object',
  properties: {
    schema_version: { type: 'integer' },
    event_id: text,
    task_id: text,
    server: text,
    tool: text,
    type: { type: 'string', enum: [...EVENT_TYPES] },
    seq: { type: 'integer' },
    ts: time,
    payload: object,
  },
  required: ['event_id', 'task_id', 'type', 'seq', 'ts', 'payload'],
};

/** One event feed entry: an event, a cancellation, unrecognised trigger types, or lost entries. */
const FEED_ENTRY: JsonSchema = {
  type: 'object',
  properties: {
    cursor: { type: 'integer' },
    kind: { type: 'string', enum: ['event', 'cancelled', 'unrecognised_triggers', 'lost'] },
    event: TASK_EVENT,
    task_id: text,
    tool: text,
    ts: time,
    types: { type: 'array', items: text },
    known_trigger_types: { type: 'array', items: text },
    count: { type: 'integer' },
  },
  required: ['cursor', 'kind'],
};

/** The outputSchema of each kit tool that has one, by tool name. */
export const KIT_OUTPUT_SCHEMAS: Readonly<Record<string, JsonSchema>> = {
  get_task: { type: 'object', anyOf: [TASK_INFO_SCHEMA, NOT_FOUND] },
  cancel_task: {
    type: 'object',
    anyOf: [
      {
        type: 'object',
        properties: {
          task_id: text,
          state: { type: 'string', enum: [...TASK_STATES] },
          body_running: { const: true },
          overran_grace: { const: true },
        },
        required: ['task_id', 'state'],
      },
      NOT_FOUND,
    ],
  },
  list_tasks: {
    type: 'object',
    properties: {
      tasks: { type: 'array', items: TASK_INFO_SCHEMA },
      next_cursor: { type: 'string', description: 'Pass as cursor to read the next page' },
    },
    required: ['tasks'],
  },
  get_events: {
    type: 'object',
    properties: {
      entries: { type: 'array', items: FEED_ENTRY },
      cursor: { type: 'integer' },
      more: { type: 'boolean' },
    },
    required: ['entries', 'cursor'],
  },
  wait_for_event: {
    type: 'object',
    properties: {
      timeout: { type: 'boolean' },
      entry: FEED_ENTRY,
      task_ended: TASK_INFO_SCHEMA,
      cursor: { type: 'integer' },
    },
    required: ['timeout', 'cursor'],
  },
};
