import { AjvJsonSchemaValidator } from '@modelcontextprotocol/sdk/validation/ajv';
import {
  type JsonSchemaType,
  type JsonSchemaValidator,
  type jsonSchemaValidator,
} from '@modelcontextprotocol/sdk/validation';

/**
 * The JSON Schema validator of one session's SDK `Server`, built on first use. The SDK builds an
 * Ajv instance for every `Server` it constructs (about half the heap of an idle session), and uses
 * it only to check elicitation answers: a session that never elicits never pays for it. Still one
 * validator per session, as before, so its compiled schemas go with the session.
 */
export class LazyJsonSchemaValidator implements jsonSchemaValidator {
  private inner: AjvJsonSchemaValidator | undefined;

  getValidator<T>(schema: JsonSchemaType): JsonSchemaValidator<T> {
    this.inner ??= new AjvJsonSchemaValidator();
    return this.inner.getValidator<T>(schema);
  }
}
