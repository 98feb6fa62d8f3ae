import { describe, expect, it } from '@jest/globals';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import fc from 'fast-check';
import { plainToInstance, Transform, Type } from 'class-transformer';
import {
  Allow,
  ArrayMaxSize,
  IsArray,
  IsBoolean,
  IsDefined,
  IsIn,
  IsInt,
  IsNumber,
  IsOptional,
  IsString,
  MaxLength,
  Min,
  validate,
  ValidateIf,
  ValidateNested,
  ValidatorConstraint,
  type ValidatorConstraintInterface,
  Validate,
} from 'class-validator';
import { fastValidate } from '../../src/schema/fast-dto.validator.js';
import { validateArguments } from '@robot-mcp-kit/server/advanced';

class FlatArgs {
  @IsString()
  @MaxLength(5)
  name!: string;

  @IsOptional()
  @IsInt()
  @Min(0)
  count?: number;

  @IsOptional()
  @IsBoolean()
  flag?: boolean;

  @IsOptional()
  @IsIn(['slow', 'fast'])
  mode?: string;

  @ValidateIf((o: FlatArgs) => o.mode === 'fast')
  @IsNumber({ allowNaN: false, allowInfinity: false })
  speed?: number;

  @Allow()
  note?: unknown;
}

class ChildArgs extends FlatArgs {
  @IsDefined()
  @IsString()
  label!: string;
}

class WithDefault {
  @IsString()
  name!: string;

  extra = 'set by the constructor, never whitelisted';
}

class Coerced {
  @Type(() => Number)
  @IsNumber()
  n!: number;
}

class Transformed {
  @Transform(({ value }) => String(value).trim())
  @IsString()
  s!: string;
}

class Inner {
  @IsInt()
  x!: number;
}

class Nested {
  @ValidateNested()
  @Type(() => Inner)
  inner!: Inner;
}

class Each {
  @IsString({ each: true })
  tags!: string[];
}

class ArrayArgs {
  @IsArray()
  @ArrayMaxSize(3)
  @IsString({ each: true })
  @MaxLength(4, { each: true })
  tags!: string[];

  @IsOptional()
  @ValidateNested({ each: true })
  @Type(() => Inner)
  points?: Inner[];

  @IsOptional()
  @ValidateNested()
  @Type(() => Inner)
  one?: Inner;
}

class SelfNested {
  @IsOptional()
  @ValidateNested()
  @Type(() => SelfNested)
  child?: SelfNested;
}

class Grouped {
  @IsString({ groups: ['admin'] })
  name!: string;
}

class WithGetter {
  @IsString()
  get name(): string {
    return 'fixed';
  }
}

@ValidatorConstraint({ name: 'slowCheck', async: true })
class SlowCheck implements ValidatorConstraintInterface {
  async validate(value: unknown): Promise<boolean> {
    return typeof value === 'string';
  }
}

class AsyncArgs {
  @Validate(SlowCheck)
  name!: string;
}

class Empty {}

class ProtoField {
  @IsString()
  prototype!: string;
}

/** What the full class-transformer + class-validator path decides. */
async function slowPath(dto: new () => object, input: object): Promise<{ valid: boolean; instance: object }> {
  const instance = plainToInstance(dto, input) as object;
  const errors = await validate(instance, {
    whitelist: true,
    forbidNonWhitelisted: true,
    forbidUnknownValues: true,
  });
  return { valid: errors.length === 0, instance };
}

const primitive = fc.oneof(
  fc.string({ maxLength: 8 }),
  fc.integer({ min: -5, max: 50 }),
  fc.double({ noNaN: false }),
  fc.boolean(),
  fc.constant(null),
  fc.constantFrom('slow', 'fast', 'x'),
);
const keys = fc.constantFrom('name', 'count', 'flag', 'mode', 'speed', 'note', 'label', 'other', 'toString');

describe('fastValidate', () => {
  it('agrees with class-transformer + class-validator on flat DTOs (property)', async () => {
    const whitelisted = new Set(['name', 'count', 'flag', 'mode', 'speed', 'note', 'label']);
    await fc.assert(
      fc.asyncProperty(
        fc.dictionary(keys, primitive),
        fc.constantFrom(FlatArgs, ChildArgs),
        async (input, dto) => {
          const fast = fastValidate(dto, input);
          const slow = await slowPath(dto, input);
          // Sound: "valid" only when the full path says valid. Complete on whitelisted keys.
          if (fast) expect(slow.valid).toBe(true);
          if (Object.keys(input).every((k) => whitelisted.has(k)))
            expect(fast !== undefined).toBe(slow.valid);
          if (fast) {
            expect(fast).toBeInstanceOf(dto);
            expect(fast).toEqual(slow.instance);
            expect(Object.keys(fast)).toEqual(Object.keys(slow.instance));
          }
        },
      ),
      { numRuns: 400 },
    );
  });

  it('agrees with the full path on arrays and nested DTOs (property)', async () => {
    const inner = fc.dictionary(fc.constantFrom('x', 'y'), primitive, { maxKeys: 2 });
    const value = fc.oneof(
      primitive,
      fc.array(primitive, { maxLength: 4 }),
      inner,
      fc.array(inner, { maxLength: 3 }),
      fc.array(fc.oneof(primitive, inner), { maxLength: 3 }),
    );
    await fc.assert(
      fc.asyncProperty(
        fc.dictionary(fc.constantFrom('tags', 'points', 'one', 'other'), value),
        async (input) => {
          const fast = fastValidate(ArrayArgs, input);
          const slow = await slowPath(ArrayArgs, input);
          if (fast) {
            expect(slow.valid).toBe(true);
            expect(fast).toEqual(slow.instance);
            for (const point of (fast as ArrayArgs).points ?? []) expect(point).toBeInstanceOf(Inner);
            if ((fast as ArrayArgs).one !== undefined) expect((fast as ArrayArgs).one).toBeInstanceOf(Inner);
            if ('tags' in input) expect((fast as ArrayArgs).tags).not.toBe(input.tags); // copied
          }
        },
      ),
      { numRuns: 600 },
    );
  });

  it('covers every well-formed array and nested argument the full path accepts (property)', async () => {
    const point = fc.record(
      { x: fc.oneof(fc.integer({ min: -3, max: 3 }), fc.double()) },
      { requiredKeys: [] },
    );
    const input = fc.record(
      {
        tags: fc.array(fc.string({ maxLength: 6 }), { maxLength: 4 }),
        points: fc.array(point, { maxLength: 3 }),
        one: point,
      },
      { requiredKeys: ['tags'] },
    );
    await fc.assert(
      fc.asyncProperty(input, async (args) => {
        const slow = await slowPath(ArrayArgs, args);
        expect(fastValidate(ArrayArgs, args) !== undefined).toBe(slow.valid);
      }),
      { numRuns: 400 },
    );
  });

  it('leaves an array given for a single nested DTO to the full path (found by the property test)', async () => {
    expect(fastValidate(ArrayArgs, { tags: [], one: [] })).toBeUndefined();
    expect((await slowPath(ArrayArgs, { tags: [], one: [] })).valid).toBe(true);
  });

  it('leaves one object given for an each-nested array property to the full path (property counterexample)', async () => {
    expect(fastValidate(ArrayArgs, { tags: [], points: { x: 0 } })).toBeUndefined();
    expect((await slowPath(ArrayArgs, { tags: [], points: { x: 0 } })).valid).toBe(true);
  });

  it('reports the full path messages for invalid array and nested arguments', async () => {
    await expect(
      validateArguments('t', ArrayArgs, { tags: ['a'], points: [{ x: 1 }, { x: 'no' }] }),
    ).rejects.toThrow('x must be an integer number');
    await expect(validateArguments('t', ArrayArgs, { tags: ['toolong'] })).rejects.toThrow(
      'each value in tags must be shorter than or equal to 4 characters',
    );
  });

  it('follows a DTO nested in itself, leaving very deep input to the full path', async () => {
    const input = { child: { child: { child: {} } } };
    const fast = fastValidate(SelfNested, input);
    expect(fast).toEqual((await slowPath(SelfNested, input)).instance);
    expect((fast as SelfNested).child?.child).toBeInstanceOf(SelfNested);
    let deep: Record<string, unknown> = {};
    for (let i = 0; i < 100; i += 1) deep = { child: deep };
    expect(fastValidate(SelfNested, deep)).toBeUndefined();
  });

  it('returns the DTO instance for valid arguments', () => {
    const value = fastValidate(ChildArgs, { name: 'ab', label: 'x', mode: 'fast', speed: 1.5, count: 2 });
    expect(value).toBeInstanceOf(ChildArgs);
    expect(value).toEqual(
      Object.assign(new ChildArgs(), { name: 'ab', label: 'x', mode: 'fast', speed: 1.5, count: 2 }),
    );
  });

  it('leaves invalid arguments to the full path', () => {
    expect(fastValidate(FlatArgs, { name: 'too long a name' })).toBeUndefined();
    expect(fastValidate(FlatArgs, { name: 'a', mode: 'fast' })).toBeUndefined();
    expect(fastValidate(FlatArgs, { name: 'a', unknown: 1 })).toBeUndefined();
    expect(fastValidate(ChildArgs, { name: 'a' })).toBeUndefined();
  });

  it('leaves object and array values to the full path', () => {
    expect(fastValidate(FlatArgs, { name: 'a', note: { deep: true } })).toBeUndefined();
    expect(fastValidate(FlatArgs, { name: 'a', note: [1] })).toBeUndefined();
  });

  it('leaves constructor-set properties without metadata to the full path', async () => {
    expect(fastValidate(WithDefault, { name: 'a' })).toBeUndefined();
    await expect(validateArguments('t', WithDefault, { name: 'a' })).rejects.toThrow(
      'extra should not exist',
    );
  });

  it.each([
    ['@Type', Coerced, { n: 5 }],
    ['@Transform', Transformed, { s: ' a ' }],
    ['a primitive for a nested DTO', Nested, { inner: 1 }],
    ['an array of arrays', Each, { tags: [['a']] }],
    ['groups', Grouped, { name: 'a' }],
    ['a getter', WithGetter, { name: 'a' }],
    ['an async constraint', AsyncArgs, { name: 'a' }],
    ['no metadata', Empty, {}],
    ['a property named like a forbidden key', ProtoField, { prototype: 'a' }],
  ])('does not cover DTOs with %s', (_what, dto, input) => {
    expect(fastValidate(dto as new () => object, input)).toBeUndefined();
    expect(fastValidate(dto as new () => object, input)).toBeUndefined();
  });

  it('keeps validateArguments results and messages for the DTOs it does not cover', async () => {
    expect(await validateArguments('t', Coerced, { n: '5' })).toEqual(Object.assign(new Coerced(), { n: 5 }));
    expect(await validateArguments('t', Transformed, { s: ' a ' })).toEqual(
      Object.assign(new Transformed(), { s: 'a' }),
    );
    await expect(validateArguments('t', AsyncArgs, { name: 3 })).rejects.toThrow('name:');
  });

  it('still refuses forbidden keys the fast path does not take', async () => {
    await expect(validateArguments('t', ProtoField, { prototype: 'a' })).rejects.toThrow(
      'prototype: the key "prototype" is not allowed',
    );
  });

  it('reports the full path messages for invalid flat arguments', async () => {
    await expect(validateArguments('t', FlatArgs, { name: 7, count: -1 })).rejects.toThrow(
      'name: name must be a string',
    );
  });
});

describe('the class-validator and class-transformer versions the fast path reads', () => {
  // The fast path reads these packages' metadata storages, so it is checked (by the differential
  // property tests above) against one exact version of each: an upgrade is a deliberate change of
  // these pins, gated by those tests. docs/benchmarks.md says why it is not built on Ajv instead.
  const requireJson = createRequire(import.meta.url);
  const installed = (name: string): string =>
    (requireJson(`${name}/package.json`) as { version: string }).version;
  const pins = (file: string): Record<string, string> =>
    (
      JSON.parse(readFileSync(new URL(file, import.meta.url), 'utf8')) as {
        dependencies: Record<string, string>;
      }
    ).dependencies;

  it.each(['../../package.json', '../../../core/package.json'])('are pinned exactly in %s', (file) => {
    const deps = pins(file);
    for (const name of ['class-validator', 'class-transformer']) {
      expect({ name, pin: deps[name] }).toEqual({ name, pin: installed(name) });
    }
  });
});
