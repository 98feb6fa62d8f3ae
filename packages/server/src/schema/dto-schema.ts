import { createRequire } from 'node:module';
import {
  getMetadataStorage,
  transformerMetadataStorage as transformer,
  ValidationTypes,
} from '@robot-mcp-kit/core/dto';
import { type DtoClass } from '../metadata/decorator-args.types.js';
import {
  DEFAULT_CONVERTERS,
  type JsonSchema,
  type SchemaContext,
  type SchemaMeta,
} from './dto-schema.converters.js';
import { mergeSchemas } from './json-merge.js';

export type { JsonSchema } from './dto-schema.converters.js';

type SchemaDecoration = JsonSchema | ((schema: JsonSchema, options: object) => JsonSchema);

const require = createRequire(import.meta.url);
// `@JSONSchema()` keeps its schema under a Symbol private to this module of the library; reading it
// here (not from the index, which loads all of class-validator) sees what either import wrote.
const { getMetadataSchema } = require('class-validator-jsonschema/build/decorators.js') as {
  getMetadataSchema: (target: object, key: string) => SchemaDecoration;
};

const REF_PREFIX = '#/definitions/';
const OPTIONAL_TYPES: readonly string[] = [ValidationTypes.CONDITIONAL_VALIDATION, 'isEmpty'];

const CONTEXT: SchemaContext = {
  refPointerPrefix: REF_PREFIX,
  findTypeClass: (target, property) => transformer.findTypeMetadata(target, property)?.typeFunction(),
};

type Target = { name: string; prototype: object };

function groupBy<T>(items: readonly T[], key: (item: T) => string): Record<string, T[]> {
  const groups: Record<string, T[]> = {};
  for (const item of items) (groups[key(item)] ??= []).push(item);
  return groups;
}

/** With each custom constraint's metadata `type` set to its constraint's name (as the library did). */
function withConstraintNames(metas: readonly SchemaMeta[]): SchemaMeta[] {
  const storage = getMetadataStorage();
  return metas.map((meta) => {
    if (meta.constraintCls) {
      const constraints = storage.getTargetValidatorConstraints(meta.constraintCls as () => void);
      if (constraints.length > 0) return { ...meta, type: constraints[0]!.name };
    }
    return { ...meta };
  });
}

function convertProperty(metas: readonly SchemaMeta[]): JsonSchema {
  return mergeSchemas<JsonSchema>(
    ...metas.map((meta) => {
      const typeMeta = transformer.findTypeMetadata(meta.target, meta.propertyName) as
        { reflectedType?: new () => object } | undefined;
      const isMap =
        typeof typeMeta?.reflectedType === 'function' && new typeMeta.reflectedType() instanceof Map;
      const converter =
        DEFAULT_CONVERTERS[meta.type] ?? DEFAULT_CONVERTERS[ValidationTypes.CUSTOM_VALIDATION]!;
      const items = typeof converter === 'function' ? converter(meta, CONTEXT) : converter;
      if (meta.each && isMap) return { additionalProperties: { ...items }, type: 'object' };
      return meta.each ? { items, type: 'array' } : items;
    }),
  );
}

function decorate(schema: JsonSchema, target: Target, key: string): JsonSchema {
  const extra = getMetadataSchema(target.prototype, key);
  return typeof extra === 'function'
    ? extra(schema, { refPointerPrefix: REF_PREFIX })
    : mergeSchemas(schema, extra);
}

function requiredNames(target: Target, metas: readonly SchemaMeta[]): string[] {
  const optional = (group: readonly SchemaMeta[]) => group.some((m) => OPTIONAL_TYPES.includes(m.type));
  return Object.entries(groupBy(metas, (m) => m.propertyName))
    .filter(([, group]) => !optional(group))
    .map(([name]) => name);
}

function inheritedMetas(target: Target, metas: readonly SchemaMeta[]): SchemaMeta[] {
  return metas.filter(
    (d) =>
      d.target instanceof Function &&
      target.prototype instanceof d.target &&
      !metas.find((m) => m.propertyName === d.propertyName && m.target === target && m.type === d.type),
  );
}

function renamed(meta: SchemaMeta): SchemaMeta {
  const exposed = transformer
    .getExposedMetadatas(meta.target)
    .find((m) => m.propertyName === meta.propertyName);
  if (exposed?.options.name) meta.propertyName = exposed.options.name;
  return meta;
}

/** One schema per DTO class name, as class-validator-jsonschema's `validationMetadataArrayToSchemas`. */
function metasToSchemas(metas: readonly SchemaMeta[]): Record<string, JsonSchema> {
  const schemas: Record<string, JsonSchema> = {};
  for (const [key, own] of Object.entries(groupBy(metas, (m) => (m.target as Target).name))) {
    const target = own[0]!.target as Target;
    const all = own
      .concat(inheritedMetas(target, metas))
      .filter((m) => !transformer.findExcludeMetadata(m.target, m.propertyName))
      .filter((m) => !transformer.findExcludeMetadata(target, m.propertyName))
      .map(renamed);
    const properties: JsonSchema = {};
    for (const [name, group] of Object.entries(groupBy(all, (m) => m.propertyName))) {
      properties[name] = decorate(convertProperty(group), target, name);
    }
    const definition: JsonSchema = { properties, type: 'object' };
    const required = requiredNames(target, all);
    if (required.length > 0) definition.required = required;
    schemas[key] = decorate(definition, target, target.name);
  }
  return schemas;
}

function classSchema(schemas: Record<string, JsonSchema>, target: Target | null): JsonSchema {
  if (!target?.name) return {};
  return schemas[target.name] ?? classSchema(schemas, Object.getPrototypeOf(target) as Target | null);
}

/**
 * Converts DTO classes to JSON Schemas (class-validator metadata, `@Type()` and `@JSONSchema()`),
 * inlining nested DTO references (MCP clients expect a self-contained schema) and closing the
 * top-level object (`additionalProperties: false`, as unknown properties are rejected). Build once
 * at bootstrap.
 */
export class DtoSchemaBuilder {
  private definitions: Record<string, JsonSchema> | undefined;

  build(dto: DtoClass | undefined): JsonSchema {
    if (!dto) return { type: 'object', properties: {}, additionalProperties: false };
    const metas = getMetadataStorage().getTargetValidationMetadatas(
      dto,
      '',
      true,
      false,
    ) as unknown as SchemaMeta[];
    const schema = classSchema(metasToSchemas(withConstraintNames(metas)), dto);
    const inlined = this.inline(schema, new Set([dto.name])) as JsonSchema;
    return { type: 'object', properties: {}, ...inlined, additionalProperties: false };
  }

  private allDefinitions(): Record<string, JsonSchema> {
    if (!this.definitions) {
      const stored = (getMetadataStorage() as unknown as { validationMetadatas: Map<unknown, SchemaMeta[]> })
        .validationMetadatas;
      const metas: SchemaMeta[] = [];
      for (const [, list] of stored) metas.push(...withConstraintNames(list));
      this.definitions = metasToSchemas(metas);
    }
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
