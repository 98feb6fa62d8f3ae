import { getMetadataStorage } from 'class-validator';
import { targetConstructorToSchema, validationMetadatasToSchemas } from 'class-validator-jsonschema';
import { type DtoClass } from '../metadata/decorator-args.types.js';
import { TransformerShapeProbe } from './transformer-shape.probe.js';

/** A JSON Schema object, as tools/list shows it. */
export type JsonSchema = Record<string, unknown>;

type SchemaOptions = NonNullable<Parameters<typeof validationMetadatasToSchemas>[0]>;

const REF_PREFIX = '#/definitions/';

/**
 * The options the kit gives class-validator-jsonschema: the author's class-validator storage (the
 * kit's `class-validator` is a peer, so it is the author's copy) and, as its
 * `classTransformerMetadataStorage`, what class-transformer's public API says of each property
 * (`TransformerShapeProbe`), so `@Type()`, `@Exclude()` and `@Expose({ name })` shape the schema
 * without reading class-transformer's unexported storage.
 */
function schemaOptions(): SchemaOptions {
  return {
    classValidatorMetadataStorage: getMetadataStorage(),
    classTransformerMetadataStorage:
      new TransformerShapeProbe() as unknown as SchemaOptions['classTransformerMetadataStorage'],
    refPointerPrefix: REF_PREFIX,
  };
}

/**
 * Converts DTO classes to JSON Schemas with class-validator-jsonschema (`targetConstructorToSchema`,
 * `@JSONSchema()` for extras). The kit's additions, and only these: nested DTO references are
 * inlined (MCP clients expect a self-contained schema; a recursive reference becomes
 * `{"type": "object"}`), and the top-level object is closed (`additionalProperties: false`, as unknown
 * properties are refused) with `type` and `properties` always present. Build once at bootstrap.
 */
export class DtoSchemaBuilder {
  private options: SchemaOptions | undefined;
  private definitions: Record<string, JsonSchema> | undefined;

  build(dto: DtoClass | undefined): JsonSchema {
    if (!dto) return { type: 'object', properties: {}, additionalProperties: false };
    const schema = targetConstructorToSchema(dto, this.schemaOptions()) as JsonSchema;
    const inlined = this.inline(schema, new Set([dto.name])) as JsonSchema;
    return { type: 'object', properties: {}, ...inlined, additionalProperties: false };
  }

  private schemaOptions(): SchemaOptions {
    this.options ??= schemaOptions();
    return this.options;
  }

  /** Every DTO's schema by class name: where `#/definitions/<Name>` references point. */
  private allDefinitions(): Record<string, JsonSchema> {
    this.definitions ??= validationMetadatasToSchemas(this.schemaOptions()) as Record<string, JsonSchema>;
    return this.definitions;
  }

  private inline(node: unknown, stack: ReadonlySet<string>): unknown {
    if (Array.isArray(node)) return node.map((item) => this.inline(item, stack));
    if (node === null || typeof node !== 'object') return node;
    const record = node as Record<string, unknown>;
    const ref = record.$ref;
    if (typeof ref === 'string' && ref.startsWith(REF_PREFIX)) {
      const name = ref.slice(REF_PREFIX.length);
      if (stack.has(name)) return { type: 'object' };
      const target = this.allDefinitions()[name] ?? { type: 'object' };
      const { $ref: _ignored, ...rest } = record;
      return { ...(this.inline(target, new Set([...stack, name])) as JsonSchema), ...rest };
    }
    const out: Record<string, unknown> = {};
    for (const [key, value] of Object.entries(record)) out[key] = this.inline(value, stack);
    return out;
  }
}
