import { type CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { type Logger } from '@robot-mcp-kit/core';
import { type DtoClass } from '../metadata/decorator-args.types.js';
import { type PlainToolDefinition } from '../metadata/definitions.types.js';
import { validateStrictly } from '../schema/argument.validator.js';
import { type DtoSchemaBuilder, type JsonSchema } from '../schema/dto-schema.js';
import { toolErrorResult } from './tool-results.js';

/** The typed result of a plain tool: its outputSchema and the check of each answer against it. */
export interface ToolOutput {
  /** Listed as the tool's `outputSchema`; undefined for a tool without a result class. */
  readonly outputSchema?: JsonSchema;
  /**
   * The answer itself when it matches (or is an error), else a tool error naming each problem;
   * undefined for a tool without a result class (its answers pass as they are).
   */
  readonly check?: (result: CallToolResult) => Promise<CallToolResult>;
}

const UNTYPED: ToolOutput = {};

/**
 * The output of `@Tool({ result: SomeDto })`: `outputSchema` built from the DTO, and each answer's
 * `structuredContent` validated with class-validator as arguments are (unknown properties refused,
 * as the schema's `additionalProperties: false` does). A client that validates (the official SDK
 * client does) therefore never sees an answer its outputSchema rejects: the author gets a tool error
 * that names the field instead.
 */
export function toolOutput(
  definition: PlainToolDefinition,
  schemas: DtoSchemaBuilder,
  logger: Logger,
): ToolOutput {
  const dto = definition.result;
  if (!dto) return UNTYPED;
  const outputSchema = schemas.build(dto);
  return {
    outputSchema,
    async check(result: CallToolResult): Promise<CallToolResult> {
      if (result.isError) return result;
      const problems = await problemsOf(result.structuredContent, dto, outputSchema);
      if (problems.length === 0) return result;
      const message =
        `${definition.name} returned a result that does not match its result class ${dto.name}: ` +
        `${problems.join('; ')}. Return a plain object with the properties of ${dto.name} ` +
        '(leave optional ones out rather than null), or declare another result class';
      logger.error('tool result does not match its result class', { result: dto.name, problems });
      return toolErrorResult(message);
    },
  };
}

async function problemsOf(structured: unknown, dto: DtoClass, schema: JsonSchema): Promise<string[]> {
  if (structured === undefined || structured === null || typeof structured !== 'object') {
    return ['it returned no object (a string, nothing, or a CallToolResult without structuredContent)'];
  }
  const record = structured as Record<string, unknown>;
  const { problems } = await validateStrictly(dto, record);
  return [...problems, ...nullsNotAllowed(record, schema)];
}

/**
 * Top-level properties set to null whose schema does not allow null: class-validator's
 * `@IsOptional()` lets null through, JSON Schema (a client's check) does not.
 */
function nullsNotAllowed(record: Record<string, unknown>, schema: JsonSchema): string[] {
  const properties = (schema.properties ?? {}) as Record<string, JsonSchema>;
  return Object.keys(record)
    .filter((key) => record[key] === null && key in properties && !allowsNull(properties[key]!))
    .map((key) => `${key}: is null, which its schema does not allow; leave the property out instead`);
}

function allowsNull(schema: JsonSchema): boolean {
  const { type, anyOf, oneOf } = schema as { type?: unknown; anyOf?: unknown; oneOf?: unknown };
  if (type === 'null' || (Array.isArray(type) && type.includes('null'))) return true;
  if (type === undefined && anyOf === undefined && oneOf === undefined) return true;
  const alternatives = [anyOf, oneOf].filter(Array.isArray).flat() as JsonSchema[];
  return alternatives.some(allowsNull);
}
