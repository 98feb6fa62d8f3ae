import {
  type Logger,
  RobotMcpKitError,
  TaskError,
  type TaskContext,
  type TaskInfo,
  type TaskManager,
  type JsonObject,
} from '@robot-mcp-kit/core';
import { type TaskControl } from '@robot-mcp-kit/core/host';
import { type CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import {
  type LongRunningToolDefinition,
  type PlainToolDefinition,
  type ToolDefinition,
} from '../metadata/definitions.types.js';
import { validateArguments } from '../schema/argument.validator.js';
import { type DtoSchemaBuilder, type JsonSchema } from '../schema/dto-schema.js';
import { type RegisteredTool, type ToolCall } from './registered-tool.js';
import { normalizeToolResult, taskInfoResult, toolErrorResult } from './tool-results.js';
import { ActuatorBusyError, type TaskStarter } from './task-starter.js';
import { toolOutput } from './tool-output.js';
import { unrecognisedTriggerTypes } from '../rules/trigger-types.rules.js';

/** What a plain `@Tool` method receives as its second parameter. */
export interface ToolCallContext {
  readonly sessionId: string;
  /** Aborted when the client cancels the request. */
  readonly signal: AbortSignal;
  readonly logger: Logger;
  /**
   * This server's tasks, whichever session started them: `list({ tool, state })`, `get(id)`,
   * `cancel(id)` and `cancelAll({ tool, taskIds, except })`, which returns the TaskInfo of each
   * task it cancelled — what an `emergency_stop` tool calls (docs/authoring.md).
   */
  readonly tasks: TaskControl;
}

export interface DecoratedToolsDeps {
  readonly instance: object;
  readonly schemas: DtoSchemaBuilder;
  readonly starter: TaskStarter;
  readonly taskManager: TaskManager;
  readonly triggerTypes: readonly { type: string; description?: string }[];
  readonly logger: Logger;
}

/** Builds the MCP tools of a class's `@Tool` and `@LongRunningTool` definitions. */
export function createDecoratedTools(
  definitions: readonly ToolDefinition[],
  deps: DecoratedToolsDeps,
): RegisteredTool[] {
  return definitions.map((d) => (d.kind === 'tool' ? plainTool(d, deps) : longRunningTool(d, deps)));
}

/** What a plain tool needs: its instance, the schema builder, the task manager and a logger. */
export type PlainToolDeps = Pick<DecoratedToolsDeps, 'instance' | 'schemas' | 'taskManager' | 'logger'>;

/**
 * One plain `@Tool` as an MCP tool: arguments validated against its DTO, the method's return value
 * normalised ({@link normalizeToolResult}: a CallToolResult passes through), a throw mapped to a tool
 * error. A kit definition's method also receives the raw {@link ToolCall} (progress token,
 * notifications) as its third argument.
 */
export function plainTool(definition: PlainToolDefinition, deps: PlainToolDeps): RegisteredTool {
  const method = methodOf(deps.instance, definition.methodName);
  const logger = deps.logger.child({ tool: definition.name });
  const output = toolOutput(definition, deps.schemas, logger);
  const where = `${deps.instance.constructor.name}.${definition.methodName}`;
  return {
    ...listing(definition, deps.schemas.build(definition.dto)),
    ...(output.outputSchema ? { outputSchema: output.outputSchema } : {}),
    longRunning: false,
    async call(raw: unknown, call: ToolCall): Promise<CallToolResult> {
      try {
        const args = await validateArguments(definition.name, definition.dto, raw);
        const context: ToolCallContext = {
          sessionId: call.session.id,
          signal: call.extra.signal,
          logger,
          tasks: deps.taskManager.control,
        };
        const result = definition.kit
          ? method.call(deps.instance, args, context, call)
          : method.call(deps.instance, args, context);
        const answer = normalizeToolResult(await result, where);
        return output.check ? await output.check(answer) : answer;
      } catch (err) {
        return errorResult(definition.name, err, logger);
      }
    },
  };
}

function longRunningTool(definition: LongRunningToolDefinition, deps: DecoratedToolsDeps): RegisteredTool {
  const method = methodOf(deps.instance, definition.methodName);
  const logger = deps.logger.child({ tool: definition.name });
  const schema = withTriggers(deps.schemas.build(definition.dto), deps.triggerTypes);
  const start = async (raw: unknown, call: ToolCall): Promise<TaskInfo> => {
    const { triggers, rest } = splitTriggers(raw);
    const args = await validateArguments(definition.name, definition.dto, rest);
    const estimate = definition.estDurationS;
    const estDurationS =
      typeof estimate === 'function' ? (estimate as (a: object) => number | undefined)(args) : estimate;
    return deps.starter.start({
      definition,
      call,
      triggers,
      estDurationS,
      body: (ctx: TaskContext) => expectPromise(method.call(deps.instance, args, ctx), definition),
    });
  };
  return {
    ...listing(definition, schema),
    longRunning: true,
    start,
    async call(raw: unknown, call: ToolCall): Promise<CallToolResult> {
      try {
        return withUnrecognisedTriggers(taskInfoResult(await start(raw, call)), deps.triggerTypes);
      } catch (err) {
        return errorResult(definition.name, err, logger);
      }
    },
  };
}

/**
 * Adds `unrecognised_triggers` (the trigger types no evaluator handles: they will never fire, the
 * spec only asks for a warning log) and `known_trigger_types` to a task-start result, so the agent
 * sees a misspelled type at once instead of waiting for it forever.
 */
export function withUnrecognisedTriggers(
  result: CallToolResult,
  known: readonly { type: string }[],
): CallToolResult {
  const info = result.structuredContent as { triggers?: unknown } | undefined;
  const triggers: readonly unknown[] = Array.isArray(info?.triggers) ? info.triggers : [];
  if (triggers.length === 0) return result;
  const knownTypes = known.map((t) => t.type);
  const unknown = unrecognisedTriggerTypes(triggers, knownTypes);
  if (unknown.length === 0 || !info) return result;
  const structured = { ...info, unrecognised_triggers: unknown, known_trigger_types: knownTypes };
  return {
    ...result,
    content: [{ type: 'text', text: JSON.stringify(structured) }],
    structuredContent: structured,
  };
}

/**
 * The body's result as a Promise. A method that returned no Promise (declared without `async` and
 * returning a plain value) ran synchronously, blocking the server: the task fails with the fix.
 */
function expectPromise(result: unknown, definition: LongRunningToolDefinition): Promise<JsonObject> {
  if (isThenable(result)) return Promise.resolve(result) as Promise<JsonObject>;
  throw new TaskError(
    'NOT_A_PROMISE',
    `@LongRunningTool ${definition.methodName} returned ${result === null ? 'null' : typeof result}, ` +
      `not a Promise; declare it "async ${definition.methodName}(args, ctx)" so its body runs in the background`,
    { recoverable: false },
  );
}

function isThenable(value: unknown): value is PromiseLike<unknown> {
  return (
    (typeof value === 'object' || typeof value === 'function') &&
    value !== null &&
    typeof (value as { then?: unknown }).then === 'function'
  );
}

function listing(definition: ToolDefinition, inputSchema: JsonSchema) {
  return {
    name: definition.name,
    description: definition.description,
    title: definition.title,
    annotations: { ...definition.annotations },
    inputSchema,
    origin: definition.kit ? ('kit' as const) : ('decorated' as const),
    actuates: definition.actuates,
    ...(definition.scope !== undefined ? { scope: definition.scope } : {}),
    ...(definition.safety ? { safety: definition.safety } : {}),
    ...(definition.confirm !== undefined ? { confirm: definition.confirm } : {}),
  };
}

/** Adds the optional `triggers` array every long-running tool accepts. */
function withTriggers(
  schema: JsonSchema,
  types: readonly { type: string; description?: string }[],
): JsonSchema {
  const known = types.map((t) => (t.description ? `${t.type} (${t.description})` : t.type)).join('; ');
  const properties = { ...(schema.properties as Record<string, unknown> | undefined) };
  properties.triggers = {
    type: 'array',
    description:
      `Optional conditions evaluated while the task runs; each fires a trigger_fired event at most once ` +
      `(unless "repeat": true). Known types: ${known || 'none'}.`,
    items: {
      type: 'object',
      properties: {
        type: { type: 'string', description: `The trigger type: ${types.map((t) => t.type).join(', ')}` },
        repeat: { type: 'boolean', description: 'Fire every time the condition holds, not only once' },
      },
      required: ['type'],
      additionalProperties: true,
    },
  };
  return { ...schema, properties };
}

function splitTriggers(raw: unknown): { triggers: unknown; rest: unknown } {
  if (
    raw === null ||
    typeof raw !== 'object' ||
    Array.isArray(raw) ||
    !Object.prototype.hasOwnProperty.call(raw, 'triggers')
  ) {
    return { triggers: undefined, rest: raw };
  }
  const { triggers, ...rest } = raw as Record<string, unknown>;
  return { triggers, rest };
}

function errorResult(tool: string, err: unknown, logger: Logger): CallToolResult {
  if (err instanceof TaskError) {
    const failure = err.toFailure().toJSON();
    return toolErrorResult(JSON.stringify(failure), failure as unknown as Record<string, unknown>);
  }
  if (err instanceof ActuatorBusyError) {
    return toolErrorResult(err.message, { error_code: err.code, message: err.message, holders: err.holders });
  }
  if (err instanceof RobotMcpKitError) return toolErrorResult(err.message);
  const message = err instanceof Error ? err.message : String(err);
  logger.error('tool call failed', { error: message, stack: err instanceof Error ? err.stack : undefined });
  return toolErrorResult(`${tool} failed: ${message}`);
}

function methodOf(instance: object, name: string): (...args: unknown[]) => unknown {
  return (instance as Record<string, (...args: unknown[]) => unknown>)[name] as (
    ...args: unknown[]
  ) => unknown;
}
