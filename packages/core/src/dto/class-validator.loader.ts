import { createRequire } from 'node:module';
import type * as CT from 'class-transformer';
import type * as CV from 'class-validator';

/**
 * class-validator's index loads all of its ~90 decorator modules, and with them validator.js and
 * libphonenumber-js: about 800 CommonJS files and 150–200 ms of every cold start. Nothing needs
 * them up front. The kit loads the modules it uses by their paths instead, and each DTO decorator
 * loads its own module on first use (./dto-decorators.ts).
 *
 * Both routes meet the same state: class-validator keeps its metadata in one global storage
 * (`global.classValidatorMetadataStorage`), and the modules here are the very files its index
 * loads (one CommonJS cache). So DTOs decorated through `class-validator` itself still work; they
 * only pay the full load.
 */
const require = createRequire(import.meta.url);

/** Loads one module of class-validator's CommonJS build, by its path under `cjs/`. */
function classValidatorModule<T>(path: string): T {
  return require(`class-validator/cjs/${path}.js`) as T;
}

type AnyFunction = (...args: never[]) => unknown;

/**
 * A function that loads `name` from `cjs/decorator/<file>` on its first call and then calls it:
 * what a DTO decorator factory costs at start is the file that defines it.
 */
export function lazyDecorator<F extends AnyFunction>(file: string, name: string): F {
  let real: ((...args: unknown[]) => unknown) | undefined;
  const decorator = (...args: unknown[]): unknown => {
    real ??= classValidatorModule<Record<string, (...a: unknown[]) => unknown>>(`decorator/${file}`)[name];
    if (typeof real !== 'function') throw new TypeError(`class-validator has no ${name} in ${file}`);
    return real(...args);
  };
  Object.defineProperty(decorator, 'name', { value: name });
  return decorator as unknown as F;
}

const { getFromContainer } = classValidatorModule<{ getFromContainer: typeof CV.getFromContainer }>(
  'container',
);
const { Validator } = classValidatorModule<{ Validator: typeof CV.Validator }>('validation/Validator');

/** class-validator's metadata storage (the global one its index also returns). */
export const getMetadataStorage: typeof CV.getMetadataStorage = classValidatorModule<{
  getMetadataStorage: typeof CV.getMetadataStorage;
}>('metadata/MetadataStorage').getMetadataStorage;

/** class-validator's `ValidationTypes` (the metadata `type` of the built-in validation kinds). */
export const ValidationTypes: typeof CV.ValidationTypes = classValidatorModule<{
  ValidationTypes: typeof CV.ValidationTypes;
}>('validation/ValidationTypes').ValidationTypes;

/** class-validator's `validate` for decorated objects (validation schemas by name are not used here). */
export function validate(object: object, options?: CV.ValidatorOptions): Promise<CV.ValidationError[]> {
  return getFromContainer(Validator).validate(object, options);
}

/** class-validator's `validateSync` for decorated objects. */
export function validateSync(object: object, options?: CV.ValidatorOptions): CV.ValidationError[] {
  return getFromContainer(Validator).validateSync(object, options);
}

/** class-validator's `registerDecorator`, for custom decorators. */
export const registerDecorator: typeof CV.registerDecorator = lazyDecorator(
  '../register-decorator',
  'registerDecorator',
);

const classTransformer = require('class-transformer/cjs/ClassTransformer.js') as {
  ClassTransformer: new () => { plainToInstance: typeof CT.plainToInstance };
};
const transformer = new classTransformer.ClassTransformer();

/** class-transformer's `plainToInstance`, without loading the rest of its index. */
export const plainToInstance: typeof CT.plainToInstance = ((cls: never, plain: never, options?: never) =>
  transformer.plainToInstance(cls, plain, options)) as typeof CT.plainToInstance;

/** A `@Type()` record of class-transformer's metadata storage. */
export interface TransformerTypeMetadata {
  typeFunction: (options?: unknown) => unknown;
  options?: { discriminator?: unknown; keepDiscriminatorProperty?: boolean };
}

/**
 * The part of class-transformer's metadata storage the kit reads (its JSON schemas follow
 * `@Type()`, `@Exclude()` and `@Expose({ name })`; its fast validator checks that a DTO
 * transforms nothing). The library does not export the storage from its index.
 */
export interface TransformerMetadataStorage {
  getStrategy(target: unknown): string;
  getExposedMetadatas(target: unknown): { propertyName?: string; options: { name?: string } }[];
  getExcludedMetadatas(target: unknown): unknown[];
  findExcludeMetadata(target: unknown, property: string): unknown;
  findTypeMetadata(target: unknown, property: string): TransformerTypeMetadata | undefined;
  findTransformMetadatas(target: unknown, property: string, transformationType: number): unknown[];
}

/** class-transformer's metadata storage: the one its decorators write, whichever import they came from. */
export const transformerMetadataStorage: TransformerMetadataStorage = (
  require('class-transformer/cjs/storage') as { defaultMetadataStorage: TransformerMetadataStorage }
).defaultMetadataStorage;

/** class-transformer's `TransformationType` (`PLAIN_TO_CLASS` is what `plainToInstance` runs). */
export const TransformationType: typeof CT.TransformationType = (
  require('class-transformer/cjs/enums/transformation-type.enum.js') as {
    TransformationType: typeof CT.TransformationType;
  }
).TransformationType;

/** class-transformer's `@Type()`: the class of a nested DTO property. */
export const Type: typeof CT.Type = (
  require('class-transformer/cjs/decorators/type.decorator.js') as { Type: typeof CT.Type }
).Type;

export type {
  ValidationArguments,
  ValidationError,
  ValidationOptions,
  ValidatorOptions,
} from 'class-validator';
