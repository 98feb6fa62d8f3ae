/** Keys refused anywhere in tool arguments: they could pollute prototypes. */
export const FORBIDDEN_KEYS: ReadonlySet<string> = new Set(['__proto__', 'constructor', 'prototype']);
