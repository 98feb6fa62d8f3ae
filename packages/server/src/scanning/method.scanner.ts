/**
 * Lists the method names of a class: own and inherited prototype methods, nearest first, without
 * `constructor` and without duplicates (an override hides the base method).
 */
export function scanMethodNames(target: abstract new (...args: never[]) => unknown): string[] {
  const names: string[] = [];
  const seen = new Set<string>(['constructor']);
  for (let proto: object | null = target.prototype as object; proto && proto !== Object.prototype;) {
    for (const name of Object.getOwnPropertyNames(proto)) {
      if (seen.has(name)) continue;
      const descriptor = Object.getOwnPropertyDescriptor(proto, name);
      if (descriptor && typeof descriptor.value === 'function') {
        seen.add(name);
        names.push(name);
      }
    }
    proto = Object.getPrototypeOf(proto) as object | null;
  }
  return names;
}

/** Reads method metadata under `key` for `methodName`, looking up the prototype chain. */
export function readMethodMetadata<T>(
  target: abstract new (...args: never[]) => unknown,
  key: symbol,
  methodName: string,
): T | undefined {
  return Reflect.getMetadata(key, target.prototype as object, methodName) as T | undefined;
}
