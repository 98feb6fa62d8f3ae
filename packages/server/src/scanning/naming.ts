/** `navigateTo` → `navigate_to`; `getHTTPStatus` → `get_http_status`. */
export function toSnakeCase(name: string): string {
  return name
    .replace(/([a-z0-9])([A-Z])/g, '$1_$2')
    .replace(/([A-Z]+)([A-Z][a-z])/g, '$1_$2')
    .replace(/[-\s]+/g, '_')
    .toLowerCase();
}

/** Tool names MCP clients accept: letters, digits, `_`, `-`, `.`, 1 to 128 characters. */
export const TOOL_NAME = /^[A-Za-z0-9_.-]{1,128}$/;

/** Trigger types: lower snake_case, e.g. `eta_below`. */
export const TRIGGER_TYPE = /^[a-z][a-z0-9_]{0,63}$/;
