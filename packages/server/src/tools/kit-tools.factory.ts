import { type CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { DecorationError } from '../errors/server.error.js';
import { exploreTools } from '../scanning/tool.explorer.js';
import { plainTool, type PlainToolDeps } from './decorated-tools.factory.js';
import { KIT_OUTPUT_SCHEMAS } from './kit-output.schemas.js';
import { type RegisteredTool } from './registered-tool.js';
import { type ToolArgs } from '../metadata/decorator-args.types.js';

/**
 * The kit's own tools (reconciliation, event feed) through the authors' path: `instance`'s class
 * declares them with `@Tool` and DTO classes, the tool explorer reads them (allowed the reserved
 * names) and the decorated-tools factory builds them. Its methods take `(args, ctx, call)` and
 * return a CallToolResult (see `kitToolResult` and {@link kitJsonResult}), so their wire answers are
 * the kit's own. Each is listed with its outputSchema from `KIT_OUTPUT_SCHEMAS`.
 */
export function createKitTools(instance: object, deps: Omit<PlainToolDeps, 'instance'>): RegisteredTool[] {
  const target = instance.constructor as abstract new (...args: never[]) => unknown;
  return exploreTools(target, { kit: true }).map((definition) => {
    if (definition.kind !== 'tool') {
      throw new DecorationError(
        `${target.name}.${definition.methodName}`,
        `kit tool ${definition.name} is declared with @LongRunningTool`,
        "declare the kit's own tools with @Tool (they answer at once)",
      );
    }
    const tool = plainTool(definition, { ...deps, instance });
    const outputSchema = KIT_OUTPUT_SCHEMAS[definition.name];
    return outputSchema ? { ...tool, outputSchema } : tool;
  });
}

/**
 * A kit tool's answer: the JSON text (spec §3.3: the reconciliation tools return JSON text, which
 * older clients read) and the same object as `structuredContent` (what typed clients read, checked
 * against the tool's outputSchema). `text` is the object already serialized, when the caller has it.
 */
export function kitJsonResult(value: object, text: string = JSON.stringify(value)): CallToolResult {
  return {
    content: [{ type: 'text', text }],
    structuredContent: value as Record<string, unknown>,
  };
}

/**
 * The `@Tool` arguments of a kit tool that only reads (the reconciliation and event-feed tools):
 * annotated read-only and closed-world, its title also the annotations' title.
 */
export function readOnlyKitTool(name: string, description: string, title: string): ToolArgs {
  return { name, description, title, annotations: { title, readOnlyHint: true, openWorldHint: false } };
}
