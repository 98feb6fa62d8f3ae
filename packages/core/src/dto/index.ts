/**
 * `@robot-mcp-kit/core/dto`: what a DTO class needs — class-validator's decorators (each loads its
 * own module on first use, not the whole library at start), `@Type()` for nested DTOs, and
 * class-validator's `validate`/`validateSync`. The decorators are class-validator's own, so DTOs
 * behave exactly as with `import … from 'class-validator'`, minus ~150 ms of cold start.
 *
 * @packageDocumentation
 */
export * from './dto-decorators.js';
export {
  getMetadataStorage,
  plainToInstance,
  registerDecorator,
  TransformationType,
  transformerMetadataStorage,
  Type,
  validate,
  validateSync,
  ValidationTypes,
  type TransformerMetadataStorage,
  type TransformerTypeMetadata,
  type ValidationArguments,
  type ValidationError,
  type ValidationOptions,
  type ValidatorOptions,
} from './class-validator.loader.js';
