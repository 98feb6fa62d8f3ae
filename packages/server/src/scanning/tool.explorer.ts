import { isScopeName } from '../auth/tool-scopes.js';
import {
  isMcpToolName,
  isReservedToolName,
  RESERVED_TOOL_NAMES,
  TOOL_NAME_MAX_LENGTH,
  toSnakeCase,
} from '@robot-mcp-kit/core/rules';
import { DecorationError } from '../errors/server.error.js';
import {
  type DtoClass,
  type ToolAnnotationsArgs,
  type ToolArgsBase,
} from '../metadata/decorator-args.types.js';
import {
  type LongRunningToolDefinition,
  type PlainToolDefinition,
  type ToolDefinition,
} from '../metadata/definitions.types.js';
import { METADATA_KEYS } from '../metadata/metadata.keys.js';
import { type RecordedLongRunningTool, type RecordedTool } from '../metadata/recorded-metadata.types.js';
import { checkDtoIsDecorated, missingMetadataError } from './dto.check.js';
import { readMethodMetadata, scanMethodNames } from './method.scanner.js';
import { NoArgs } from './no-args.dto.js';

type Target = abstract new (...args: never[]) => unknown;

const NOT_A_DTO: ReadonlySet<unknown> = new Set([
  Object,
  String,
  Number,
  Boolean,
  Array,
  Promise,
  Function,
  Symbol,
]);

/** How a class's tools are explored. */
export interface ExploreToolsOptions {
  /**
   * The class holds the kit's own tools (`tools/kit-tools.factory.ts`): they may take the reserved
   * names and are marked `kit`. Authors' classes never set it.
   */
  readonly kit?: boolean;
}

/** Reads `@Tool` and `@LongRunningTool` metadata of every method into frozen definitions. */
export function exploreTools(target: Target, options: ExploreToolsOptions = {}): ToolDefinition[] {
  const tools: ToolDefinition[] = [];
  for (const methodName of scanMethodNames(target)) {
    const plain = readMethodMetadata<RecordedTool>(target, METADATA_KEYS.tool, methodName);
    const longRunning = readMethodMetadata<RecordedLongRunningTool>(
      target,
      METADATA_KEYS.longRunningTool,
      methodName,
    );
    const where = `${target.name}.${methodName}`;
    if (plain && longRunning) {
      throw new DecorationError(where, 'has both @Tool and @LongRunningTool', 'keep only one of them');
    }
    if (plain) tools.push(buildPlain(target, methodName, plain, options));
    if (longRunning) tools.push(buildLongRunning(target, methodName, longRunning));
  }
  const seen = new Map<string, string>();
  for (const tool of tools) {
    if (!options.kit && isReservedToolName(tool.name)) {
      throw new DecorationError(
        `${target.name}.${tool.methodName}`,
        `tool name "${tool.name}" is reserved by the kit (${RESERVED_TOOL_NAMES.join(', ')})`,
        `give the decorator another name: { name: 'my_${tool.name}' }`,
      );
    }
    const other = seen.get(tool.name);
    if (other !== undefined) {
      throw new DecorationError(
        `${target.name}.${tool.methodName}`,
        `tool name "${tool.name}" is already used by ${target.name}.${other}`,
        'give one of them another name with { name: ... }',
      );
    }
    seen.set(tool.name, tool.methodName);
  }
  return tools;
}

function buildPlain(
  target: Target,
  methodName: string,
  recorded: RecordedTool,
  options: ExploreToolsOptions,
): PlainToolDefinition {
  const method = methodOf(target, methodName);
  const dto =
    method.length === 0 && !recorded.args.args ? undefined : findDto(target, methodName, recorded.args);
  const kit = options.kit ? { kit: true as const } : {};
  const result = resultDto(`${target.name}.${methodName}`, recorded.args.result);
  return Object.freeze({
    kind: 'tool',
    ...common(target, methodName, recorded.args),
    dto,
    ...(result ? { result } : {}),
    ...kit,
  });
}

/** The DTO class of `@Tool({ result })`, checked like an argument class. */
function resultDto(where: string, result: unknown): DtoClass | undefined {
  if (result === undefined) return undefined;
  if (typeof result !== 'function' || NOT_A_DTO.has(result)) {
    throw new DecorationError(
      where,
      '`result` is not a DTO class',
      'pass a class whose properties carry class-validator decorators: { result: ScanResult }',
    );
  }
  checkDtoIsDecorated(result as DtoClass, where);
  return result as DtoClass;
}

function buildLongRunning(
  target: Target,
  methodName: string,
  recorded: RecordedLongRunningTool,
): LongRunningToolDefinition {
  const where = `${target.name}.${methodName}`;
  checkCanReturnPromise(target, where, methodName);
  const { maxConcurrent, preempt, estDurationS, cancelOnDisconnect } = recorded.args;
  if (cancelOnDisconnect !== undefined && typeof cancelOnDisconnect !== 'boolean') {
    throw new DecorationError(where, 'cancelOnDisconnect must be true or false', 'fix the value');
  }
  if (maxConcurrent !== undefined && (!Number.isInteger(maxConcurrent) || maxConcurrent < 1)) {
    throw new DecorationError(
      where,
      `maxConcurrent ${String(maxConcurrent)} is not a positive integer`,
      'use 1 or more',
    );
  }
  if (
    estDurationS !== undefined &&
    typeof estDurationS !== 'function' &&
    !(Number.isFinite(estDurationS) && estDurationS >= 0)
  ) {
    throw new DecorationError(
      where,
      'estDurationS must be a number >= 0 or a function of the arguments',
      'fix the value',
    );
  }
  return Object.freeze({
    kind: 'long-running',
    ...common(target, methodName, recorded.args),
    dto: findDto(target, methodName, recorded.args),
    estDurationS,
    maxConcurrent,
    preempt: preempt ?? false,
    cancelOnDisconnect: cancelOnDisconnect ?? false,
  });
}

function common(target: Target, methodName: string, args: Readonly<ToolArgsBase>) {
  const where = `${target.name}.${methodName}`;
  const name = args.name ?? toSnakeCase(methodName);
  if (!isMcpToolName(name)) {
    throw new DecorationError(
      where,
      `tool name ${JSON.stringify(name)} is not valid`,
      `use 1-${TOOL_NAME_MAX_LENGTH} letters, digits, "_", "-" or "."`,
    );
  }
  if (typeof args.description !== 'string' || args.description.trim() === '') {
    throw new DecorationError(
      where,
      'the tool has no description',
      `add description: 'What it does, for the LLM'`,
    );
  }
  const actuates = args.actuates ?? false;
  const annotations: ToolAnnotationsArgs = Object.freeze({
    ...(actuates ? { readOnlyHint: false, destructiveHint: true } : {}),
    ...args.annotations,
  });
  const { scope, safety, confirm } = who(where, name, args, actuates);
  return {
    ...safety,
    ...confirm,
    name,
    description: args.description,
    title: args.title,
    annotations,
    actuates,
    ...scope,
    methodName,
  };
}

/** Who may call the tool and how: its OAuth scope, e-stop/re-arm role and confirmation message. */
function who(where: string, name: string, args: Readonly<ToolArgsBase>, actuates: boolean) {
  if (args.scope !== undefined && !isScopeName(args.scope)) {
    throw new DecorationError(
      where,
      `scope ${JSON.stringify(args.scope)} is not an OAuth scope name`,
      "use printable ASCII without spaces, quotes or backslashes, e.g. scope: 'robot:drive'",
    );
  }
  const scope = args.scope !== undefined ? { scope: args.scope } : {};
  if ((args.estop || args.rearm) && (actuates || (args.estop && args.rearm))) {
    throw new DecorationError(
      where,
      'a tool marked estop or rearm neither actuates nor is both',
      'drop actuates: true (stopping and re-arming are not actuation), and mark one tool estop and another rearm',
    );
  }
  const safety = args.estop ? { safety: 'estop' as const } : args.rearm ? { safety: 'rearm' as const } : {};
  if (args.confirm !== undefined && typeof args.confirm !== 'boolean' && typeof args.confirm !== 'string') {
    throw new DecorationError(
      where,
      'confirm is neither a boolean nor a message',
      "use confirm: true or confirm: 'Open door {door}?'",
    );
  }
  if (args.confirm !== undefined && args.estop) {
    throw new DecorationError(
      where,
      'the e-stop cannot ask for confirmation',
      'drop confirm: stopping never waits for a human',
    );
  }
  const confirm =
    args.confirm === true
      ? { confirm: `Allow ${name} to run with {arguments}?` }
      : typeof args.confirm === 'string'
        ? { confirm: args.confirm }
        : {};
  return { scope, safety, confirm };
}

/** The DTO class of a tool's arguments; undefined for {@link NoArgs}. */
function findDto(target: Target, methodName: string, args: Readonly<ToolArgsBase>): DtoClass | undefined {
  const where = `${target.name}.${methodName}`;
  if (args.args === NoArgs) return undefined;
  if (args.args !== undefined) {
    if (typeof args.args !== 'function' || NOT_A_DTO.has(args.args)) {
      throw new DecorationError(
        where,
        '`args` is not a DTO class',
        'pass a class with class-validator decorators',
      );
    }
    checkDtoIsDecorated(args.args, where);
    return args.args;
  }
  const paramTypes = Reflect.getMetadata('design:paramtypes', target.prototype as object, methodName) as
    unknown[] | undefined;
  if (paramTypes === undefined) throw missingMetadataError(where, methodName);
  const first = paramTypes[0];
  if (first === NoArgs) return undefined;
  if (typeof first !== 'function' || NOT_A_DTO.has(first)) {
    throw new DecorationError(
      where,
      'cannot find the DTO class of its arguments (the first parameter is not typed with a class)',
      'type the first parameter with a class whose properties carry class-validator decorators ' +
        '(e.g. "args: NavigateArgs"), or pass it explicitly: { args: NavigateArgs }; a tool without ' +
        'arguments that needs its context takes "_args: NoArgs, ctx: ToolCallContext"',
    );
  }
  checkDtoIsDecorated(first as DtoClass, where);
  return first as DtoClass;
}

/**
 * A long-running body must return a Promise, and start-up refuses a method that would not. Accepted:
 * an `async` method (an `AsyncFunction`), and a method whose declared return type is `Promise<...>`
 * (TypeScript's `design:returntype` metadata is `Promise`: a method that returns a Promise without
 * `async`, or an async method wrapped by another decorator). Refused: a generator, and any other
 * method — one declared with another return type, or with none (no annotation, `void`, plain
 * JavaScript): nothing then says it returns a Promise, and one that returns a plain value would run
 * its body synchronously at each call, blocking the server. The error names both fixes.
 */
function checkCanReturnPromise(target: Target, where: string, methodName: string): void {
  const method = methodOf(target, methodName);
  const kind = typeof method === 'function' ? method.constructor.name : typeof method;
  if (kind === 'AsyncFunction') return;
  const declared: unknown = Reflect.getMetadata('design:returntype', target.prototype as object, methodName);
  if (kind === 'Function' && declared === Promise) return;
  const generator = /^(Async)?GeneratorFunction$/.test(kind);
  const problem = generator
    ? 'not on a generator'
    : kind !== 'Function'
      ? `not on a ${kind}`
      : typeof declared === 'function'
        ? `but ${methodName} is not async and is declared to return ${declared.name}`
        : `but ${methodName} is not async and its return type is not declared Promise<...>`;
  throw new DecorationError(
    where,
    `@LongRunningTool must be put on a method that returns a Promise, ${problem}`,
    `declare it "async ${methodName}(args: MyArgs, ctx: TaskContext): Promise<object>" so its body runs ` +
      'in the background; a method that returns a Promise without async is accepted when its return ' +
      'type is declared Promise<...>',
  );
}

function methodOf(target: Target, methodName: string): (...args: unknown[]) => unknown {
  return (target.prototype as Record<string, (...args: unknown[]) => unknown>)[methodName] as (
    ...args: unknown[]
  ) => unknown;
}
