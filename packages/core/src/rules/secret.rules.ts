import { ConfigError } from '../errors/kit.error.js';

/** The shortest event-signing secret a server starts with: 32 bytes (HMAC-SHA256's key strength). */
export const MIN_EVENT_SECRET_BYTES = 32;

/** The variable that lets a server start with a shorter secret anyway (with a loud warning). */
export const ALLOW_WEAK_SECRET_VARIABLE = 'RMK_ALLOW_WEAK_SECRET';

/** How to make a secret that passes. */
export const EVENT_SECRET_FIX =
  'generate one with `openssl rand -hex 32` and set it both here and in the receiving app ' +
  `(or, for a local experiment only, set ${ALLOW_WEAK_SECRET_VARIABLE}=1)`;

/** The UTF-8 length of a secret, in bytes. */
export function secretBytes(secret: string): number {
  return new TextEncoder().encode(secret).length;
}

/**
 * Why an event-signing secret is too weak to start with, or undefined when it is long enough:
 * shorter than `MIN_EVENT_SECRET_BYTES` bytes (a guessable key lets anyone forge the
 * robot's events). The server (start-up) and `doctor` both read this one rule; signing itself
 * accepts any key.
 */
export function weakSecretReason(secret: string): string | undefined {
  const bytes = secretBytes(secret);
  if (bytes >= MIN_EVENT_SECRET_BYTES) return undefined;
  return `is ${bytes} bytes long; an event-signing secret needs at least ${MIN_EVENT_SECRET_BYTES} bytes`;
}

/**
 * Whether `RMK_ALLOW_WEAK_SECRET` is on (`1`/`true`/`yes`/`on`; unset, empty, `0`/`false`/`no`/`off`: off).
 * @throws ConfigError naming the variable for any other value
 */
export function weakSecretAllowed(env: NodeJS.ProcessEnv): boolean {
  const raw = env[ALLOW_WEAK_SECRET_VARIABLE];
  const value = raw?.trim().toLowerCase() ?? '';
  if (['', '0', 'false', 'no', 'off'].includes(value)) return false;
  if (['1', 'true', 'yes', 'on'].includes(value)) return true;
  throw new ConfigError(
    ALLOW_WEAK_SECRET_VARIABLE,
    `"${raw ?? ''}" is not an on/off value; use 1 (on) or 0 (off)`,
  );
}
