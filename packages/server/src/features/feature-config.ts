import { ConfigError } from '@robot-mcp-kit/core';

const TRUE = new Set(['1', 'true', 'yes', 'on']);
const FALSE = new Set(['0', 'false', 'no', 'off']);

/**
 * Reads an on/off variable: `1`/`true`/`yes`/`on` or `0`/`false`/`no`/`off` (any case); unset or
 * empty gives `undefined`.
 * @throws ConfigError naming the variable for anything else
 */
export function parseFlag(variable: string, raw: string | undefined): boolean | undefined {
  const value = raw?.trim().toLowerCase();
  if (!value) return undefined;
  if (TRUE.has(value)) return true;
  if (FALSE.has(value)) return false;
  throw new ConfigError(variable, `"${raw ?? ''}" is not an on/off value; use 1 (on) or 0 (off)`);
}

/** A boolean option, checked: `true` or `false`. */
export function checkBoolean(option: string, value: unknown): boolean | undefined {
  if (value === undefined || typeof value === 'boolean') return value;
  throw new ConfigError(option, `expected true or false, got ${JSON.stringify(value)}`);
}

/**
 * Reads a whole number from an option (wins) or a variable, within `[min, max]`.
 * @throws ConfigError naming the option or variable
 */
export function parseInteger(
  source: { option: string; value: unknown; variable: string; raw: string | undefined },
  limits: { min: number; max: number; fallback: number; unit: string },
): number {
  const fromOption = source.value !== undefined;
  const name = fromOption ? source.option : source.variable;
  const raw = fromOption ? source.value : source.raw?.trim();
  if (raw === undefined || raw === '') return limits.fallback;
  const value = typeof raw === 'string' ? Number(raw) : raw;
  if (typeof value !== 'number' || !Number.isInteger(value) || value < limits.min || value > limits.max) {
    throw new ConfigError(
      name,
      `${JSON.stringify(raw)} is not valid; use a whole number of ${limits.unit} from ${limits.min} to ` +
        `${limits.max} (default ${limits.fallback})`,
    );
  }
  return value;
}
