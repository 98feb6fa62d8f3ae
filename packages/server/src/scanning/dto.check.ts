import { getMetadataStorage } from 'class-validator';
import { DecorationError } from '../errors/server.error.js';
import { type DtoClass } from '../metadata/decorator-args.types.js';

/**
 * The property names an instance of `dto` shows at run time (class fields are only emitted with
 * `useDefineForClassFields`, or when they have an initializer); empty when they cannot be seen.
 */
function visibleProperties(dto: DtoClass): string[] {
  try {
    const instance = new (dto as new () => object)();
    return Object.keys(instance);
  } catch {
    return [];
  }
}

/**
 * Fails at start-up when the argument class of a tool carries no class-validator decorator at all:
 * tools/list would show `{"properties": {}}` and every call would be rejected with class-validator's
 * "an unknown value was passed to the validate function".
 */
export function checkDtoIsDecorated(dto: DtoClass, where: string): void {
  const storage = getMetadataStorage();
  if (storage.getTargetValidationMetadatas(dto, '', true, false).length > 0) return;
  const properties = visibleProperties(dto);
  const named =
    properties.length > 0
      ? ` (properties ${properties.join(', ')} have none)`
      : ' (its properties are invisible at run time until they carry a decorator)';
  const first = properties[0] ?? 'joint';
  throw new DecorationError(
    where,
    `its argument class ${dto.name} has no class-validator decorators${named}, so tools/list would show no ` +
      'properties and every call would be rejected',
    `decorate every property of ${dto.name} with a class-validator decorator, e.g. ` +
      `"@IsString() ${first}!: string" or "@IsNumber() @Min(0) angle_deg!: number" ` +
      '(@IsOptional() for optional ones); a tool without arguments takes no args parameter',
  );
}

/**
 * The error for a method whose parameter types were not recorded: TypeScript writes them only with
 * `emitDecoratorMetadata`, and esbuild-based runners (tsx, esbuild, vite, bun) never write them.
 */
export function missingMetadataError(where: string, methodName: string): DecorationError {
  return new DecorationError(
    where,
    'the types of its parameters were not recorded, so the DTO class of its arguments is unknown ' +
      '(TypeScript records them only with "emitDecoratorMetadata": true, and tsx/esbuild-based runners ' +
      'drop them)',
    'compile with tsc and "experimentalDecorators": true, "emitDecoratorMetadata": true in tsconfig.json ' +
      '(run dist/ with node, or use ts-node/ts-jest, not tsx/esbuild), and import "reflect-metadata" first; ' +
      `or name the DTO explicitly in the decorator: { args: MyArgs } on ${methodName}`,
  );
}
