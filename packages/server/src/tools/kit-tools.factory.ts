import { DecorationError } from '../errors/server.error.js';
import { exploreTools } from '../scanning/tool.explorer.js';
import { plainTool, type PlainToolDeps } from './decorated-tools.factory.js';
import { type RegisteredTool } from './registered-tool.js';

/**
 * The kit's own tools (reconciliation, event feed) through the authors' path: `instance`'s class
 * declares them with `@Tool` and DTO classes, the tool explorer reads them (allowed the reserved
 * names) and the decorated-tools factory builds them. Its methods take `(args, ctx, call)` and
 * return a CallToolResult (see `kitToolResult`), so their wire answers are the kit's own.
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
    return plainTool(definition, { ...deps, instance });
  });
}
