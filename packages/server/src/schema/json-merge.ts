type Container = Record<string, unknown>;

function isPlainObject(value: unknown): value is Container {
  if (value === null || typeof value !== 'object') return false;
  const proto: unknown = Object.getPrototypeOf(value);
  return proto === null || proto === Object.prototype;
}

function mergeValue(target: Container, key: string, source: unknown): void {
  const current = target[key];
  if (Array.isArray(source)) {
    const into = Array.isArray(current) ? current : [];
    mergeInto(into as unknown as Container, source as unknown as Container);
    target[key] = into;
  } else if (isPlainObject(source)) {
    const into = current !== null && typeof current === 'object' ? (current as Container) : {};
    mergeInto(into, source);
    target[key] = into;
  } else if (source !== undefined || !(key in target)) {
    target[key] = source;
  }
}

function mergeInto(target: Container, source: Container): void {
  for (const key of Object.keys(source)) mergeValue(target, key, source[key]);
}

/**
 * Deep-merges `sources` left to right into a new object with lodash.merge's rules (the ones
 * class-validator-jsonschema's output follows): plain objects merge key by key, arrays index by
 * index, `undefined` never overwrites, anything else replaces.
 */
export function mergeSchemas<T extends object>(...sources: readonly (object | undefined)[]): T {
  const out: Container = {};
  for (const source of sources) if (source) mergeInto(out, source as Container);
  return out as T;
}
