import { createRequire } from 'node:module';
import { targetConstructorToSchema, validationMetadatasToSchemas } from 'class-validator-jsonschema';
import { type DtoClass } from '../metadata/decorator-args.types.js';

/** A JSON Schema object as MCP's tools/list carries it. */
export type JsonSchema = { [key: string]: unknown };

const require = createRequire(import.meta.url);
// class-transformer keeps @Type() metadata here; the converter needs it to follow nested DTOs.
const { defaultMetadataStorage } = require('class-transformer/cjs/storage') as {
  defaultMetadataStorage: never;
};

const REF_PREFIX = '#/definitions/';

/**
 * Converts DTO classes to JSON Schemas with class-validator-jsonschema, inlining nested DTO
 * references (MCP clients expect a self-contained schema) and closing the top-level object
 * (`additionalProperties: false`, as unknown properties are rejected). Build once at bootstrap.
 */
export class DtoSchemaBuilder {
  private definitions: Record<string, JsonSchema> | undefined;

  build(dto: DtoClass | undefined): JsonSchema {
    if (!dto) return { type: 'object', properties: {}, additionalProperties: false };
    const options = { classTransformerMetadataStorage: defaultMetadataStorage, refPointerPrefix: REF_PREFIX };
    const schema = targetConstructorToSchema(dto, options) as JsonSchema;
    const inlined = this.inline(schema, new Set([dto.name])) as JsonSchema;
    return { type: 'object', properties: {}, ...inlined, additionalProperties: false };
  }

  private inline(node: unknown, stack: ReadonlySet<string>): unknown {
    if (Array.isArray(node)) return node.map((item) => this.inline(item, stack));
    if (node === null || typeof node !== 'object') return node;
    const record = node as Record<string, unknown>;
    const ref = record.$ref;
    if (typeof ref === 'string' && ref.startsWith(REF_PREFIX)) {
      const name = ref.slice(REF_PREFIX.length);
      if (stack.has(name)) return { type: 'object' };
      this.definitions ??= validationMetadatasToSchemas({
        classTransformerMetadataStorage: defaultMetadataStorage,
        refPointerPrefix: REF_PREFIX,
      }) as Record<string, JsonSchema>;
      const target = this.definitions[name] ?? { type: 'object' };
      const { $ref: _ignored, ...rest } = record;
      return { ...(this.inline(target, new Set([...stack, name])) as JsonSchema), ...rest };
    }
    const out: Record<string, unknown> = {};
    for (const [key, value] of Object.entries(record)) out[key] = this.inline(value, stack);
    return out;
  }
}
