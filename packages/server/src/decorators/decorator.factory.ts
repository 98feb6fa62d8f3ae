import { type MetadataKey } from '../metadata/metadata.keys.js';
import { type RecordedMethod } from '../metadata/recorded-metadata.types.js';

/**
 * The one decorator factory. Decorators only RECORD metadata: a frozen copy of their arguments,
 * stored on the class (or, for methods, on the prototype under the method name). Nothing runs at
 * import time, nothing is registered globally; the bootstrapper reads it later.
 */
export function recordClassMetadata<Args extends object>(key: MetadataKey, args: Args): ClassDecorator {
  const frozen = deepFreeze(structuredCloneArgs(args));
  return (target) => {
    Reflect.defineMetadata(key, frozen, target);
  };
}

export function recordMethodMetadata<Args extends object>(key: MetadataKey, args: Args): MethodDecorator {
  const frozenArgs = deepFreeze(structuredCloneArgs(args));
  return (target, propertyKey) => {
    const recorded: RecordedMethod<Args> = Object.freeze({
      methodName: String(propertyKey),
      args: frozenArgs,
    });
    Reflect.defineMetadata(key, recorded, target, propertyKey);
  };
}

/** Copies plain data; functions and classes (DTOs, validators) are kept by reference. */
function structuredCloneArgs<T extends object>(args: T): T {
  const copy: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(args)) {
    copy[k] = v !== null && typeof v === 'object' && !Array.isArray(v) ? { ...(v as object) } : v;
  }
  return copy as T;
}

function deepFreeze<T>(value: T): T {
  if (value !== null && typeof value === 'object' && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const v of Object.values(value as object)) if (typeof v === 'object') deepFreeze(v);
  }
  return value;
}
