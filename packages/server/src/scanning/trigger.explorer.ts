import { isTriggerType, TRIGGER_TYPE_MAX_LENGTH } from '@robot-mcp-kit/core/rules';
import { DecorationError } from '../errors/server.error.js';
import { type TriggerDefinition } from '../metadata/definitions.types.js';
import { METADATA_KEYS } from '../metadata/metadata.keys.js';
import { type RecordedTrigger } from '../metadata/recorded-metadata.types.js';
import { readMethodMetadata, scanMethodNames } from './method.scanner.js';

type Target = abstract new (...args: never[]) => unknown;

/** Reads `@Trigger` metadata of every method into frozen definitions. */
export function exploreTriggers(target: Target): TriggerDefinition[] {
  const triggers: TriggerDefinition[] = [];
  const seen = new Map<string, string>();
  for (const methodName of scanMethodNames(target)) {
    const recorded = readMethodMetadata<RecordedTrigger>(target, METADATA_KEYS.trigger, methodName);
    if (!recorded) continue;
    const where = `@Trigger on ${target.name}.${methodName}`;
    const { type, description, validate } = recorded.args;
    if (!isTriggerType(type)) {
      throw new DecorationError(
        where,
        `trigger type ${JSON.stringify(type)} is not valid`,
        `use lower snake_case of at most ${TRIGGER_TYPE_MAX_LENGTH} characters such as "eta_below"`,
      );
    }
    const other = seen.get(type);
    if (other !== undefined) {
      throw new DecorationError(
        where,
        `trigger type "${type}" is already evaluated by ${target.name}.${other}`,
        'keep one evaluator per type',
      );
    }
    seen.set(type, methodName);
    triggers.push(Object.freeze({ type, methodName, description, validate }));
  }
  return triggers;
}
