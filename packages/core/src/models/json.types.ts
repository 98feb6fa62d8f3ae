/** A JSON object as it appears on the wire (`dict[str, Any]` in the Python spec). */
export type JsonObject = { [key: string]: unknown };

/** True for a plain, non-null, non-array object. */
export function isJsonObject(value: unknown): value is JsonObject {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return false;
  const proto: unknown = Object.getPrototypeOf(value);
  return proto === Object.prototype || proto === null;
}
