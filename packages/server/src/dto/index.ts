/**
 * `@robot-mcp-kit/server/dto`: everything a tool's argument class needs, from one import —
 * class-validator's decorators, `@Type()` for nested DTOs and `@JSONSchema()` for descriptions.
 *
 * They are the libraries' own decorators, so a DTO behaves exactly as with imports from
 * `class-validator`, `class-transformer` and `class-validator-jsonschema`; only each decorator
 * loads its own module on first use, where those indexes load all of class-validator (with
 * validator.js and libphonenumber-js: ~150 ms of every cold start).
 *
 * @packageDocumentation
 * @module dto
 */
export * from '@robot-mcp-kit/core/dto';
export { JSONSchema } from '../schema/json-schema.decorator.js';
