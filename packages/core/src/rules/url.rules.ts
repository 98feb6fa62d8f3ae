/** What replaces the credentials of a URL in a message. */
export const REDACTED = '[redacted]';

/**
 * `text` with the credentials of every URL-like part replaced: `http://user:pw@host` becomes
 * `http://[redacted]@host`, also in text that does not parse as a URL (a bad port, a space).
 * Query strings are cut (`?token=...` can be a credential too).
 */
export function redactUrlCredentials(text: string): string {
  return text
    .replace(/(\/\/)[^/?#\s"]*@/g, `$1${REDACTED}@`)
    .replace(/(\/\/[^\s"]*?)\?[^\s"#]*/g, `$1?${REDACTED}`);
}
