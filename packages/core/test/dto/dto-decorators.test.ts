import { describe, expect, it } from '@jest/globals';
import * as classValidator from 'class-validator';
import * as dto from '@robot-mcp-kit/core/dto';
import { lazyDecorator } from '../../src/dto/class-validator.loader.js';

/** class-validator's exported classes that are not decorators. */
const NOT_DECORATORS = new Set(['ValidationError', 'ValidationTypes', 'Validator', 'MetadataStorage']);

class Pose {
  @dto.IsNumber()
  @dto.Min(-10)
  x!: number;

  @dto.IsOptional()
  @dto.IsString()
  @dto.MaxLength(4)
  frame?: string;
}

class Goal {
  @dto.IsArray()
  @dto.ValidateNested({ each: true })
  @dto.Type(() => Pose)
  poses!: Pose[];
}

describe('@robot-mcp-kit/core/dto', () => {
  it("exports every decorator class-validator's index does, under the same name", () => {
    const decorators = Object.keys(classValidator).filter(
      (name) =>
        /^[A-Z][a-z]/.test(name) &&
        typeof (classValidator as Record<string, unknown>)[name] === 'function' &&
        !NOT_DECORATORS.has(name),
    );
    expect(decorators.length).toBeGreaterThan(100);
    const missing = decorators.filter((name) => typeof (dto as Record<string, unknown>)[name] !== 'function');
    expect(missing).toEqual([]);
    expect(dto.IsString.name).toBe('IsString');
  });

  it("records class-validator's own metadata: the library's validate sees the same rules", async () => {
    const goal = dto.plainToInstance(Goal, { poses: [{ x: -11, frame: 'toolong' }, { x: 1 }] });
    expect(goal.poses[0]).toBeInstanceOf(Pose);
    const viaKit = await dto.validate(goal);
    const viaLibrary = await classValidator.validate(goal);
    const messages = (errors: classValidator.ValidationError[]) =>
      errors
        .flatMap((e) => e.children ?? [])
        .flatMap((c) => c.children ?? [])
        .flatMap((c) => Object.values(c.constraints ?? {}));
    expect(messages(viaKit)).toEqual([
      'x must not be less than -10',
      'frame must be shorter than or equal to 4 characters',
    ]);
    expect(messages(viaLibrary)).toEqual(messages(viaKit));
    expect(dto.validateSync(dto.plainToInstance(Pose, { x: 0 }))).toEqual([]);
    expect(dto.getMetadataStorage()).toBe(classValidator.getMetadataStorage());
  });

  it('a decorator that class-validator does not have fails on use, naming it', () => {
    const missing = lazyDecorator<() => unknown>('common/IsOptional', 'IsOptionalButMisspelled');
    expect(() => missing()).toThrow(/class-validator has no IsOptionalButMisspelled in common\/IsOptional/);
  });
});
