import {
  ConfigError,
  type Trigger,
  type TriggerEvaluator,
  TriggerRegistry,
  type JsonObject,
  type TaskInfo,
} from '@robot-mcp-kit/core';
import { BUILTIN_TRIGGERS } from '@robot-mcp-kit/core/host';
import { DecorationError } from '../errors/server.error.js';
import { type TriggerDefinition } from '../metadata/definitions.types.js';

/**
 * A trigger plugin: `{ type, description, validate(trigger), evaluate(trigger, progress, task) }`.
 * It is the core's {@link TriggerEvaluator} port under the name authors know it by.
 */
export type TriggerPlugin = TriggerEvaluator;

/** The plugins every capability server has unless told otherwise: the core's {@link BUILTIN_TRIGGERS}. */
export const BUILTIN_TRIGGER_PLUGINS: readonly TriggerPlugin[] = BUILTIN_TRIGGERS;

/**
 * Loads trigger plugins packaged as npm modules (or files): each module's default export (or its
 * `plugins` / `plugin` export) is a plugin or an array of plugins.
 */
export async function loadTriggerPlugins(specifiers: readonly string[]): Promise<TriggerPlugin[]> {
  const plugins: TriggerPlugin[] = [];
  for (const specifier of specifiers) {
    let mod: Record<string, unknown>;
    try {
      mod = (await import(specifier)) as Record<string, unknown>;
    } catch (err) {
      throw new ConfigError(
        'plugins',
        `cannot load trigger plugin module "${specifier}": ${(err as Error).message}; install it or fix the name`,
      );
    }
    const exported = mod.default ?? mod.plugins ?? mod.plugin;
    const list = Array.isArray(exported) ? exported : [exported];
    for (const plugin of list) {
      if (
        !plugin ||
        typeof (plugin as TriggerPlugin).type !== 'string' ||
        typeof (plugin as TriggerPlugin).evaluate !== 'function'
      ) {
        throw new ConfigError(
          'plugins',
          `module "${specifier}" does not export a trigger plugin ({ type, evaluate, ... }) as default`,
        );
      }
      plugins.push(plugin as TriggerPlugin);
    }
  }
  return plugins;
}

/**
 * The trigger registry of one server: built-ins, then the given plugins (a later one replaces an
 * earlier one of the same type), then the class's `@Trigger` methods, which override a plugin's
 * evaluation of the same type (keeping its description and field checks).
 */
export function buildTriggerRegistry(
  plugins: readonly TriggerPlugin[],
  definitions: readonly TriggerDefinition[],
  instance: object,
  className: string,
): TriggerRegistry {
  const registry = new TriggerRegistry(plugins);
  for (const definition of definitions) {
    const base = registry.get(definition.type);
    if (!base && !definition.description) {
      throw new DecorationError(
        `@Trigger('${definition.type}') on ${className}.${definition.methodName}`,
        `trigger type "${definition.type}" is not registered (known: ${registry.types().join(', ') || 'none'})`,
        `register a plugin of that type in bootstrap({ plugins }), fix the type's spelling, or declare a new type with @Trigger('${definition.type}', { description: '...' })`,
      );
    }
    const method = (instance as Record<string, unknown>)[definition.methodName] as (
      trigger: Trigger,
      progress: JsonObject,
      task: TaskInfo,
    ) => JsonObject | undefined;
    registry.register({
      type: definition.type,
      description: definition.description ?? base?.description,
      validate: definition.validate ?? base?.validate?.bind(base),
      evaluate: (trigger, progress, task) => method.call(instance, trigger, progress, task),
    });
  }
  return registry;
}
