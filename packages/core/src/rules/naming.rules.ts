/**
 * The one spelling rule of the kit (server, CLI and generator import it): how a method name becomes
 * a tool name, and how a snake_case name becomes a class, method or file name.
 */

/** `navigateTo` → `navigate_to`; `getHTTPStatus` → `get_http_status`. How the server names a tool. */
export function toSnakeCase(name: string): string {
  return name
    .replace(/([a-z0-9])([A-Z])/g, '$1_$2')
    .replace(/([A-Z]+)([A-Z][a-z])/g, '$1_$2')
    .replace(/[-\s]+/g, '_')
    .toLowerCase();
}

/** `scan_room` / `my-nav` → `ScanRoom` / `MyNav`. */
export function toPascalCase(value: string): string {
  return value
    .split(/[^A-Za-z0-9]+/)
    .filter(Boolean)
    .map((part) => part.charAt(0).toUpperCase() + part.slice(1))
    .join('');
}

/** `scan_room` → `scanRoom`. */
export function toCamelCase(value: string): string {
  const pascal = toPascalCase(value);
  return pascal.charAt(0).toLowerCase() + pascal.slice(1);
}

/** `scan_room` → `scan-room` (file names). */
export function toKebabCase(value: string): string {
  return value.replace(/_/g, '-');
}

/**
 * The closest lower snake_case name that starts with a letter, for error messages and defaults:
 * `scanRoom`, `scan-room`, `Scan Room!` → `scan_room`; `2d scan` → `d_scan`. Empty when nothing is
 * left. The result maps back to itself through {@link toCamelCase} and {@link toSnakeCase}.
 */
export function suggestSnakeCase(value: string, maxLength = 128): string {
  const cleaned = toSnakeCase(value)
    .replace(/[^a-z0-9]+/g, '_')
    .replace(/^[_0-9]+|_+$/g, '')
    .slice(0, maxLength)
    .replace(/_+$/, '');
  return toSnakeCase(toCamelCase(cleaned));
}
