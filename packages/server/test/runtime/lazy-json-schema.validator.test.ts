import { describe, expect, it } from '@jest/globals';
import { LazyJsonSchemaValidator } from '../../src/runtime/lazy-json-schema.validator.js';

describe('LazyJsonSchemaValidator (the JSON Schema validator of a session server, built on first use)', () => {
  it('checks data against a schema as the SDK Ajv validator does', () => {
    const validator = new LazyJsonSchemaValidator();
    const check = validator.getValidator<{ speed: number }>({
      type: 'object',
      properties: { speed: { type: 'number', maximum: 2 } },
      required: ['speed'],
    });
    expect(check({ speed: 1.5 })).toEqual({ valid: true, data: { speed: 1.5 }, errorMessage: undefined });
    const refused = check({ speed: 3 });
    expect(refused.valid).toBe(false);
    expect(refused.errorMessage).toMatch(/speed/);
    // a second schema goes through the same (then built) validator
    expect(validator.getValidator({ type: 'string' })('go').valid).toBe(true);
  });
});
