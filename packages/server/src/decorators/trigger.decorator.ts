import { type TriggerArgs } from '../metadata/decorator-args.types.js';
import { METADATA_KEYS } from '../metadata/metadata.keys.js';
import { recordMethodMetadata } from './decorator.factory.js';

/**
 * Marks a method `(trigger, progress, task) => extra | undefined` as this server's evaluator of the
 * trigger `type`. It overrides a plugin of the same type; for a new type give `{ description }`.
 */
export function Trigger(type: string, args: TriggerArgs = {}): MethodDecorator {
  return recordMethodMetadata(METADATA_KEYS.trigger, { ...args, type });
}
