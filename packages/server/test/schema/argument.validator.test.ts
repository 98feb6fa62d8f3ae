import { describe, expect, it } from '@jest/globals';
import { Type } from 'class-transformer';
import { IsInt, IsString, ValidateNested } from 'class-validator';
import { JSONSchema, ToolArgumentsError } from '@robot-mcp-kit/server';
import { DtoSchemaBuilder, validateArguments } from '@robot-mcp-kit/server/advanced';

class Point {
  @JSONSchema({ description: 'x in metres' })
  @IsInt()
  x!: number;
}

class RouteArgs {
  @IsString()
  name!: string;

  @ValidateNested()
  @Type(() => Point)
  start!: Point;
}

describe('validateArguments', () => {
  it('returns a DTO instance for valid arguments', async () => {
    const value = await validateArguments('route', RouteArgs, { name: 'a', start: { x: 1 } });
    expect(value).toBeInstanceOf(RouteArgs);
    expect((value as RouteArgs).start).toBeInstanceOf(Point);
  });

  it('names nested fields and every constraint', async () => {
    const error = await validateArguments('route', RouteArgs, { name: 3, start: { x: 'a' } }).catch(
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(ToolArgumentsError);
    expect((error as ToolArgumentsError).problems).toEqual([
      'name: name must be a string',
      'start.x: x must be an integer number',
    ]);
    expect((error as Error).message).toMatch(/^Invalid arguments for route: /);
  });

  it.each([
    [[1, 2], 'arguments must be a JSON object'],
    ['text', 'arguments must be a JSON object'],
    [
      JSON.parse('{"name":"a","start":{"x":1,"__proto__":{"p":1}}}') as object,
      'start.__proto__: the key "__proto__" is not allowed',
    ],
    [{ name: 'a', start: { x: 1, constructor: {} } }, 'start.constructor'],
  ])('rejects %j', async (raw, message) => {
    await expect(validateArguments('route', RouteArgs, raw)).rejects.toThrow(message);
  });

  it('rejects over-deep nesting before transforming', async () => {
    let deep: Record<string, unknown> = {};
    const root = deep;
    for (let i = 0; i < 100; i += 1) {
      const next = {};
      deep.n = next;
      deep = next;
    }
    await expect(
      validateArguments('route', RouteArgs, { name: 'a', start: { x: 1 }, extra: root }),
    ).rejects.toThrow(/nested deeper/);
  });

  it('accepts no arguments for a tool without a DTO and rejects any', async () => {
    expect(await validateArguments('ping', undefined, undefined)).toEqual({});
    await expect(validateArguments('ping', undefined, { a: 1 })).rejects.toThrow(
      'property a should not exist',
    );
  });
});

describe('DtoSchemaBuilder', () => {
  it('inlines nested DTOs and closes the top-level object', () => {
    const schema = new DtoSchemaBuilder().build(RouteArgs);
    expect(schema).toMatchObject({
      type: 'object',
      additionalProperties: false,
      required: ['name', 'start'],
      properties: {
        name: { type: 'string' },
        start: { type: 'object', properties: { x: { type: 'integer', description: 'x in metres' } } },
      },
    });
    expect(JSON.stringify(schema)).not.toContain('$ref');
  });
});
