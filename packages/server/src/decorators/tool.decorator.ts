import { type ToolArgs } from '../metadata/decorator-args.types.js';
import { METADATA_KEYS } from '../metadata/metadata.keys.js';
import { recordMethodMetadata } from './decorator.factory.js';

/**
 * A plain request/response tool: `(args: SomeDto, ctx: ToolCallContext) => result`. The result may be
 * a string, a plain object (sent as JSON text plus `structuredContent`) or a full `CallToolResult`.
 */
export function Tool(args: ToolArgs): MethodDecorator {
  return recordMethodMetadata(METADATA_KEYS.tool, args);
}
