/**
 * THE rule of unrecognised trigger types, computed here only: the types of a task's triggers that
 * no evaluator handles (they will never fire), each once, in the order they first appear. A task
 * start's tool result (`unrecognised_triggers`) and the event feed's `unrecognised_triggers` entry
 * both read it.
 */
export function unrecognisedTriggerTypes(triggers: readonly unknown[], known: readonly string[]): string[] {
  const types = new Set(triggers.map((trigger) => String((trigger as { type?: unknown } | null)?.type)));
  return [...types].filter((type) => !known.includes(type));
}
