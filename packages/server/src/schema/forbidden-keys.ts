/** Keys refused anywhere in tool arguments: they could pollute prototypes (the kit's one list). */
export { FORBIDDEN_JSON_KEYS as FORBIDDEN_KEYS } from '@robot-mcp-kit/core/rules';
