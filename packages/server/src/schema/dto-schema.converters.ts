/**
 * class-validator metadata → JSON Schema fragments, keyed by the validation's name: a port of
 * class-validator-jsonschema 5.2.0's default converters (MIT), so tools/list is byte for byte what
 * that library produced, without its import of class-validator's whole index (~150 ms of cold
 * start). `dto-schema.test.ts` checks the port against the library on a wide set of DTOs.
 */
import { ValidationTypes } from '@robot-mcp-kit/core/dto';

/** A JSON Schema object as MCP's tools/list carries it. */
export type JsonSchema = { [key: string]: unknown };

/** The fields of a class-validator ValidationMetadata that the converters read. */
export interface SchemaMeta {
  type: string;
  target: unknown;
  propertyName: string;
  constraints: unknown[];
  each?: boolean;
  constraintCls?: unknown;
}

/** The class-transformer metadata lookups the converters use. */
export interface SchemaContext {
  refPointerPrefix: string;
  findTypeClass(target: unknown, property: string): unknown;
}

export type Converter = JsonSchema | ((meta: SchemaMeta, context: SchemaContext) => JsonSchema | undefined);

const DATE_FORMATS: JsonSchema = {
  oneOf: [
    { format: 'date', type: 'string' },
    { format: 'date-time', type: 'string' },
  ],
};

function propType(target: unknown, property: string): unknown {
  const prototype = (target as { prototype?: object }).prototype;
  return prototype ? Reflect.getMetadata('design:type', prototype, property) : undefined;
}

function constraintToSchema(primitive: unknown): JsonSchema | undefined {
  const type = typeof primitive;
  return type === 'string' || type === 'number' || type === 'boolean' ? { type } : undefined;
}

/** A property's declared class as a schema: primitives by type, DTO classes as a `$ref`. */
export function targetToSchema(type: unknown, context: SchemaContext): JsonSchema | undefined {
  if (typeof type !== 'function') return undefined;
  const prototype: unknown = type.prototype;
  if (prototype === String.prototype || prototype === Symbol.prototype) return { type: 'string' };
  if (prototype === Number.prototype) return { type: 'number' };
  if (prototype === Boolean.prototype) return { type: 'boolean' };
  return { $ref: context.refPointerPrefix + type.name };
}

const first = (meta: SchemaMeta): unknown => meta.constraints[0];

function enumOf(meta: SchemaMeta, negate: boolean): JsonSchema | undefined {
  const values = first(meta) as unknown[];
  const [head, ...rest] = values.map(constraintToSchema);
  if (!head || !rest.every((item) => item?.type === head.type)) return undefined;
  const schema = { ...head, enum: values };
  return negate ? { not: schema } : schema;
}

function equalsOf(meta: SchemaMeta, negate: boolean): JsonSchema | undefined {
  const schema = constraintToSchema(first(meta));
  if (!schema) return undefined;
  const out = { ...schema, enum: [first(meta)] };
  return negate ? { not: out } : out;
}

function arrayContains(meta: SchemaMeta, negate: boolean): JsonSchema {
  const values = first(meta) as unknown[];
  const schemas = values.map(constraintToSchema);
  if (schemas.length === 0 || !schemas.every((s) => s?.type)) return { items: {}, type: 'array' };
  const each = schemas.map((d, i) => ({ ...d, enum: [values[i]] }));
  if (negate) return { items: { not: { anyOf: each } }, type: 'array' };
  return { not: { anyOf: each.map((d) => ({ items: { not: d } })) }, type: 'array' };
}

const string = (extra: JsonSchema = {}): JsonSchema => ({ ...extra, type: 'string' });
const pattern = (source: string): JsonSchema => ({ pattern: source, type: 'string' });
const format = (name: string): JsonSchema => ({ format: name, type: 'string' });

export const DEFAULT_CONVERTERS: Readonly<Record<string, Converter>> = {
  [ValidationTypes.CUSTOM_VALIDATION]: (meta, context) =>
    typeof meta.target === 'function'
      ? targetToSchema(propType(meta.target, meta.propertyName), context)
      : undefined,
  [ValidationTypes.NESTED_VALIDATION]: (meta, context) => {
    if (typeof meta.target !== 'function') return undefined;
    const child =
      context.findTypeClass(meta.target, meta.propertyName) ?? propType(meta.target, meta.propertyName);
    return targetToSchema(child, context);
  },
  [ValidationTypes.WHITELIST]: {},
  [ValidationTypes.CONDITIONAL_VALIDATION]: {},
  [ValidationTypes.IS_DEFINED]: { not: { type: 'null' } },
  equals: (meta) => equalsOf(meta, false),
  notEquals: (meta) => equalsOf(meta, true),
  isEmpty: {
    anyOf: [
      { type: 'string', enum: [''] },
      {
        not: {
          anyOf: [
            { type: 'string' },
            { type: 'number' },
            { type: 'boolean' },
            { type: 'integer' },
            { type: 'array' },
            { type: 'object' },
          ],
        },
        nullable: true,
      },
    ],
  },
  isNotEmpty: { minLength: 1, type: 'string' },
  isIn: (meta) => enumOf(meta, false),
  isNotIn: (meta) => enumOf(meta, true),
  isBoolean: { type: 'boolean' },
  isDate: DATE_FORMATS,
  isNumber: { type: 'number' },
  isString: { type: 'string' },
  isDateString: pattern('\\d{4}-[01]\\d-[0-3]\\dT[0-2]\\d:[0-5]\\d:[0-5]\\d.\\d+Z?'),
  isArray: { items: {}, type: 'array' },
  isInt: { type: 'integer' },
  isEnum: (meta) => ({ enum: Object.values(first(meta) as object), type: 'string' }),
  isDivisibleBy: (meta) => ({ multipleOf: first(meta), type: 'number' }),
  isPositive: { exclusiveMinimum: 0, type: 'number' },
  isNegative: { exclusiveMaximum: 0, type: 'number' },
  min: (meta) => ({ minimum: first(meta), type: 'number' }),
  max: (meta) => ({ maximum: first(meta), type: 'number' }),
  minDate: (meta) => ({ description: `After ${(first(meta) as Date).toJSON()}`, ...DATE_FORMATS }),
  maxDate: (meta) => ({ description: `Before ${(first(meta) as Date).toJSON()}`, ...DATE_FORMATS }),
  isBooleanString: { enum: ['true', 'false'], type: 'string' },
  isNumberString: pattern('^[-+]?[0-9]+$'),
  contains: (meta) => ({ pattern: first(meta), type: 'string' }),
  notContains: (meta) => ({ not: { pattern: first(meta) }, type: 'string' }),
  isAlpha: pattern('^[a-zA-Z]+$'),
  isAlphanumeric: pattern('^[0-9a-zA-Z]+$'),
  isAscii: pattern('^[\\x00-\\x7F]+$'),
  isBase64: format('base64'),
  isByteLength: string(),
  isCreditCard: format('credit-card'),
  isCurrency: format('currency'),
  isEmail: format('email'),
  isFqdn: format('hostname'),
  isFullWidth: pattern('[^\\u0020-\\u007E\\uFF61-\\uFF9F\\uFFA0-\\uFFDC\\uFFE8-\\uFFEE0-9a-zA-Z]'),
  isHalfWidth: pattern('[\\u0020-\\u007E\\uFF61-\\uFF9F\\uFFA0-\\uFFDC\\uFFE8-\\uFFEE0-9a-zA-Z]'),
  isVariableWidth: string(),
  isHexColor: pattern('^#?([0-9a-fA-F]{3}|[0-9a-fA-F]{6})$'),
  isHexadecimal: pattern('^[0-9a-fA-F]+$'),
  isIp: (meta) => format('ipv' + (first(meta) === '6' ? 6 : 4)),
  isIsbn: format('isbn'),
  isIsin: format('isin'),
  isIso8601: DATE_FORMATS,
  isJson: format('json'),
  isLowercase: string(),
  isMobilePhone: format('mobile-phone'),
  isMongoId: pattern('^[0-9a-fA-F]{24}$'),
  isMultibyte: pattern('[^\\x00-\\x7F]'),
  isSurrogatePair: pattern('[\\uD800-\\uDBFF][\\uDC00-\\uDFFF]'),
  isUrl: format('url'),
  isUuid: format('uuid'),
  isLength: (meta) => {
    const [minLength, maxLength] = meta.constraints;
    return maxLength || maxLength === 0
      ? { minLength, maxLength, type: 'string' }
      : { minLength, type: 'string' };
  },
  isUppercase: string(),
  isObject: { type: 'object' },
  isNotEmptyObject: { type: 'object', minProperties: 1 },
  minLength: (meta) => ({ minLength: first(meta), type: 'string' }),
  maxLength: (meta) => ({ maxLength: first(meta), type: 'string' }),
  matches: (meta) => ({ pattern: (first(meta) as RegExp).source, type: 'string' }),
  isMilitaryTime: pattern('^([01]\\d|2[0-3]):?([0-5]\\d)$'),
  arrayContains: (meta) => arrayContains(meta, false),
  arrayNotContains: (meta) => arrayContains(meta, true),
  arrayNotEmpty: { items: {}, minItems: 1, type: 'array' },
  arrayMinSize: (meta) => ({ items: {}, minItems: first(meta), type: 'array' }),
  arrayMaxSize: (meta) => ({ items: {}, maxItems: first(meta), type: 'array' }),
  arrayUnique: { items: {}, type: 'array', uniqueItems: true },
};
