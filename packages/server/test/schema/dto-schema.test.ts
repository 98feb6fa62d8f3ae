import { describe, expect, it } from '@jest/globals';
import { createRequire } from 'node:module';
import { Exclude, Expose, Transform, Type } from 'class-transformer';
import { targetConstructorToSchema, validationMetadatasToSchemas } from 'class-validator-jsonschema';
import {
  Allow,
  ArrayContains,
  ArrayMaxSize,
  ArrayMinSize,
  ArrayNotContains,
  ArrayNotEmpty,
  ArrayUnique,
  Contains,
  Equals,
  IsAlpha,
  IsAlphanumeric,
  IsArray,
  IsAscii,
  IsBase64,
  IsBoolean,
  IsBooleanString,
  IsByteLength,
  IsCreditCard,
  IsCurrency,
  IsDate,
  IsDateString,
  IsDefined,
  IsDivisibleBy,
  IsEmail,
  IsEmpty,
  IsEnum,
  IsFQDN,
  IsFullWidth,
  IsHalfWidth,
  IsHexadecimal,
  IsHexColor,
  IsIn,
  IsInt,
  IsIP,
  IsISBN,
  IsISIN,
  IsISO8601,
  IsJSON,
  IsLatitude,
  IsLowercase,
  IsMilitaryTime,
  IsMobilePhone,
  IsMongoId,
  IsMultibyte,
  IsNegative,
  IsNotEmpty,
  IsNotEmptyObject,
  IsNotIn,
  IsNumber,
  IsNumberString,
  IsObject,
  IsOptional,
  IsPositive,
  IsString,
  IsSurrogatePair,
  IsUppercase,
  IsUrl,
  IsUUID,
  IsVariableWidth,
  Length,
  Matches,
  Max,
  MaxDate,
  MaxLength,
  Min,
  MinDate,
  MinLength,
  NotContains,
  NotEquals,
  Validate,
  ValidateIf,
  ValidateNested,
  ValidatorConstraint,
} from 'class-validator';
import { JSONSchema } from '@robot-mcp-kit/server';
import { DtoSchemaBuilder } from '@robot-mcp-kit/server/advanced';

// The oracle: class-validator-jsonschema itself, called as its README shows — with class-transformer's
// own metadata storage, a private path the kit does not read (it asks class-transformer's public API
// instead; this test folder is not scanned by test/architecture/private-imports.test.ts) — target
// schema, nested definitions inlined: the kit's builder adds only the inlining and the closed object.
const require = createRequire(import.meta.url);
const { defaultMetadataStorage } = require('class-transformer/cjs/storage') as {
  defaultMetadataStorage: never;
};
const OPTIONS = {
  classTransformerMetadataStorage: defaultMetadataStorage,
  refPointerPrefix: '#/definitions/',
};

function libraryBuild(target: new () => object): unknown {
  const definitions = validationMetadatasToSchemas(OPTIONS) as Record<string, unknown>;
  const inline = (node: unknown, stack: Set<string>): unknown => {
    if (Array.isArray(node)) return node.map((item) => inline(item, stack));
    if (node === null || typeof node !== 'object') return node;
    const { $ref, ...rest } = node as Record<string, unknown>;
    if (typeof $ref === 'string') {
      const name = $ref.slice('#/definitions/'.length);
      if (stack.has(name)) return { type: 'object' };
      return {
        ...(inline(definitions[name] ?? { type: 'object' }, new Set([...stack, name])) as object),
        ...rest,
      };
    }
    return Object.fromEntries(Object.entries(rest).map(([k, v]) => [k, inline(v, stack)]));
  };
  const schema = inline(targetConstructorToSchema(target, OPTIONS), new Set([target.name])) as object;
  return { type: 'object', properties: {}, ...schema, additionalProperties: false };
}

enum Mode {
  Fast = 'fast',
  Slow = 'slow',
}

@ValidatorConstraint({ name: 'evenLength' })
class EvenLength {
  validate(value: string): boolean {
    return value.length % 2 === 0;
  }
}

class Leaf {
  @IsNumber()
  x!: number;

  @IsOptional()
  @ValidateNested()
  @Type(() => Leaf)
  next?: Leaf;
}

@JSONSchema({ description: 'A base class', examples: [{ id: 'a' }] })
class Base {
  @IsString()
  @MaxLength(8)
  id!: string;

  @IsOptional()
  @IsInt()
  shared?: number;
}

class Strings extends Base {
  @JSONSchema({ description: 'overrides the base' })
  @IsOptional()
  @IsString()
  @MinLength(2)
  override id!: string;

  @Length(2, 5) a!: string;
  @Length(2) b!: string;
  @Matches(/^a+$/) c!: string;
  @IsEmail() d!: string;
  @IsUrl() e!: string;
  @IsUUID() f!: string;
  @IsIn(['a', 'b']) g!: string;
  @IsNotIn([1, 2]) h!: number;
  @IsIn(['a', 1]) i!: string;
  @Equals('x') j!: string;
  @NotEquals(3) k!: number;
  @IsEnum(Mode) l!: Mode;
  @IsIP('6') m!: string;
  @IsIP() n!: string;
  @IsISO8601() o!: string;
  @IsDateString() p!: string;
  @IsBooleanString() q!: string;
  @IsNumberString() r!: string;
  @Contains('x') s!: string;
  @NotContains('y') t!: string;
  @IsAlpha() u!: string;
  @IsAlphanumeric() v!: string;
  @IsAscii() w!: string;
  @IsBase64() x!: string;
  @IsByteLength(1, 2) y!: string;
  @IsCreditCard() z!: string;
  @IsCurrency() aa!: string;
  @IsFQDN() ab!: string;
  @IsFullWidth() ac!: string;
  @IsHalfWidth() ad!: string;
  @IsVariableWidth() ae!: string;
  @IsHexColor() af!: string;
  @IsHexadecimal() ag!: string;
  @IsISBN() ah!: string;
  @IsISIN() ai!: string;
  @IsJSON() aj!: string;
  @IsLowercase() ak!: string;
  @IsUppercase() al!: string;
  @IsMobilePhone() am!: string;
  @IsMongoId() an!: string;
  @IsMultibyte() ao!: string;
  @IsSurrogatePair() ap!: string;
  @IsMilitaryTime() aq!: string;
  @IsNotEmpty() ar!: string;
  @IsEmpty() as?: string;
  @Validate(EvenLength) at!: string;
}

class Numbers {
  @IsNumber() @Min(0) @Max(10) a!: number;
  @IsInt() @IsPositive() b!: number;
  @IsNegative() c!: number;
  @IsDivisibleBy(5) d!: number;
  @IsLatitude() e!: number;
  @IsBoolean() f!: boolean;
  @IsDate() @MinDate(new Date(0)) @MaxDate(new Date(86_400_000)) g!: Date;
  @IsDefined() h!: unknown;
  @Allow() i!: unknown;
  @ValidateIf((o: Numbers) => o.f) @IsInt() j?: number;

  @JSONSchema((schema) => ({ ...schema, title: 'from a function' }))
  @IsInt()
  k!: number;
}

class Collections {
  @IsArray()
  @ArrayMinSize(1)
  @ArrayMaxSize(4)
  @IsString({ each: true })
  @MaxLength(3, { each: true })
  a!: string[];
  @ArrayNotEmpty() @ArrayUnique() b!: number[];
  @ArrayContains(['a', 'b']) c!: string[];
  @ArrayNotContains([1]) d!: number[];
  @ArrayContains([{}]) e!: object[];
  @IsObject() f!: object;
  @IsNotEmptyObject() g!: object;

  @ValidateNested({ each: true })
  @Type(() => Leaf)
  leaves!: Leaf[];

  @ValidateNested({ each: true })
  @Type(() => Leaf)
  byName!: Map<string, Leaf>;

  @ValidateNested()
  @Type(() => Leaf)
  one!: Leaf;

  @Exclude()
  @IsString()
  hidden!: string;

  @Expose({ name: 'renamed' })
  @IsString()
  original!: string;
}

class Point {
  @IsNumber()
  x!: number;

  @Expose({ name: 'y_m' })
  @IsNumber()
  y!: number;
}

class Renamed extends Collections {
  @Expose({ name: 'child_name' })
  @IsString()
  childName!: string;

  @IsArray()
  @ArrayMaxSize(8)
  @ValidateNested({ each: true })
  @Type(() => Point)
  points!: Point[];

  @IsOptional()
  @ValidateNested()
  @Type(() => Point)
  @Expose({ name: 'origin_point' })
  origin?: Point;
}

class Directional {
  @Exclude({ toPlainOnly: true })
  @IsString()
  secret!: string;

  @Exclude({ toClassOnly: true })
  @IsString()
  computed!: string;

  @ValidateNested({ each: true })
  @Type(() => Point)
  @Transform(({ value }: { value: unknown }) => {
    if (!Array.isArray(value)) throw new Error('an author transform refusing a probe value');
    return value as unknown;
  })
  checked!: Point[];

  @IsString()
  kept!: string;
}

@Exclude()
class OptIn {
  @Expose()
  @IsString()
  a!: string;

  @IsString()
  b!: string;

  @Expose({ name: 'c_name' })
  @ValidateNested()
  @Type(() => Point)
  c!: Point;
}

const CASES: [string, new () => object][] = [
  ['string decorators, inheritance and class-level @JSONSchema', Strings],
  ['numbers, dates, conditions and a function @JSONSchema', Numbers],
  ['arrays, maps, nested and recursive DTOs, @Exclude and @Expose', Collections],
  ['a recursive DTO', Leaf],
  ['a base class', Base],
  ['@Expose names and nested @Type arrays and objects, inherited', Renamed],
  ['@Exclude in one direction, and a @Transform that throws on a probe', Directional],
  ['a class-level @Exclude with @Expose properties', OptIn],
];

describe('DtoSchemaBuilder: the same schemas as class-validator-jsonschema, byte for byte', () => {
  it.each(CASES)('%s', (_name, target) => {
    const ours = new DtoSchemaBuilder().build(target);
    const theirs = libraryBuild(target);
    expect(ours).toEqual(theirs);
    expect(JSON.stringify(ours)).toBe(JSON.stringify(theirs)); // key order too: tools/list is unchanged
  });

  it('describes what the decorators say (not only what the library says)', () => {
    const schema = new DtoSchemaBuilder().build(Collections) as {
      properties: Record<string, Record<string, unknown>>;
      required: string[];
      additionalProperties: unknown;
    };
    expect(schema.properties.a).toEqual({
      type: 'array',
      items: { type: 'string', maxLength: 3 },
      minItems: 1,
      maxItems: 4,
    });
    expect(schema.properties.one).toEqual({
      properties: { x: { type: 'number' }, next: { type: 'object' } },
      type: 'object',
      required: ['x'],
    });
    expect(schema.properties.byName).toMatchObject({
      type: 'object',
      additionalProperties: { type: 'object' },
    });
    expect(schema.properties).not.toHaveProperty('hidden');
    expect(schema.properties).toHaveProperty('renamed');
    expect(schema.additionalProperties).toBe(false);
  });

  it('takes nested element types, renames and exclusions from class-transformer (public API only)', () => {
    const schema = new DtoSchemaBuilder().build(Renamed) as {
      properties: Record<string, Record<string, unknown>>;
      required: string[];
    };
    const point = {
      properties: { x: { type: 'number' }, y_m: { type: 'number' } },
      type: 'object',
      required: ['x', 'y_m'],
    };
    expect(schema.properties.points).toEqual({ type: 'array', items: point, maxItems: 8 });
    // class-validator-jsonschema looks a nested type up under the exposed name, so a renamed nested
    // property is `{}` with its real storage too (the byte-for-byte case above): named, not described
    expect(schema.properties.origin_point).toEqual({});
    expect(schema.properties.leaves).toMatchObject({ type: 'array', items: { required: ['x'] } });
    expect(schema.properties).toHaveProperty('child_name');
    expect(schema.properties).not.toHaveProperty('childName');
    expect(schema.properties).not.toHaveProperty('hidden');
    expect(schema.required).toEqual(expect.arrayContaining(['child_name', 'points', 'renamed']));
    const directional = new DtoSchemaBuilder().build(Directional) as { properties: object };
    expect(Object.keys(directional.properties)).toEqual(['checked', 'kept']);
  });

  it('gives a DTO-less tool an empty closed object', () => {
    expect(new DtoSchemaBuilder().build(undefined)).toEqual({
      type: 'object',
      properties: {},
      additionalProperties: false,
    });
  });
});
