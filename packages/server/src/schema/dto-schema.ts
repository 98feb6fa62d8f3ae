import { createRequire } from 'node:module';
import { getMetadataStorage } from 'class-validator';
import { targetConstructorToSchema, validationMetadatasToSchemas } from 'class-validator-jsonschema';
import { type DtoClass } from '../metadata/decorator-args.types.js';

/** A JSON Schema object, as tools/list shows it. */
export type JsonSchema = Record<string, unknown>;

type SchemaOptions = NonNullable<Parameters<typeof validationMetadatasToSchemas>[0]>;

const REF_PREFIX = '#/definitions/';

const require = createRequire(import.meta.url);

/**
 * The options the kit gives class-validator-jsonschema: the author's class-validator storage (the
 * kit's `class-validator` is a peer, so it is the author's copy) and class-transformer's storage, so
 * `@Type()`, `@Exclude()` and `@Expose({ name })` shape the schema. class-transformer does not export
 * its storage from its index; class-validator-jsonschema's README documents this very module as the
 * value of `classTransformerMetadataStorage` (the one path of a dependency the kit reads that is not
 * a package entry; allow-listed, with that reason, in test/architecture/private-imports.test.ts).
 */
function schemaOptions(): SchemaOptions {
  const { defaultMetadataStorage } = require('class-transformer/cjs/storage') as {
    defaultMetadataStorage: SchemaOptions['classTransformerMetadataStorage'];
  };
  return {
    classValidatorMetadataStorage: getMetadataStorage(),
    classTransformerMetadataStorage: defaultMetadataStorage,
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
