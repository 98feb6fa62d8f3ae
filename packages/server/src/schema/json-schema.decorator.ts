import { createRequire } from 'node:module';
import type * as Cvjs from 'class-validator-jsonschema';

const require = createRequire(import.meta.url);

/**
 * class-validator-jsonschema's `@JSONSchema()`: extra JSON Schema for a DTO class or property
 * (descriptions, examples, formats), merged into what its validation decorators describe. Taken
 * from the library's decorator module alone: its index loads all of class-validator.
 */
export const JSONSchema: typeof Cvjs.JSONSchema = (
  require('class-validator-jsonschema/build/decorators.js') as { JSONSchema: typeof Cvjs.JSONSchema }
).JSONSchema;
