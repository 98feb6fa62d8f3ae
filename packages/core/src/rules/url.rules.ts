/** What replaces the credentials (and the query) of a URL in a message. */
export const REDACTED = '[redacted]';

/**
 * One URL value as it may be printed: everything between `://` and the last `@` (user and
 * password, even with `/`, `@`, `:` or spaces in them) and the query (`?token=...` can be a
 * credential too) are replaced, also when the value does not parse as a URL (a bad port, a bad
 * character). `mqtt://robot:pw@host:99999` becomes `mqtt://[redacted]@host:99999`.
 */
export function redactUrl(value: string): string {
  const start = value.indexOf('//');
  if (start < 0) return redactUrlCredentials(value);
  const at = value.lastIndexOf('@');
  const head = value.slice(0, start + 2);
  const rest = at > start ? `${REDACTED}${value.slice(at)}` : value.slice(start + 2);
  const query = rest.indexOf('?');
  return head + (query < 0 ? rest : `${rest.slice(0, query)}?${REDACTED}`);
}

/**
 * `text` (a message, a library's error) with the credentials and the query of every URL in it
 * replaced: `http://user:pw@host` becomes `http://[redacted]@host`, also for text that does not
 * parse as a URL. A URL ends at white space, a quote or `<>`.
 */
export function redactUrlCredentials(text: string): string {
  return text
    .replace(/\/\/[^\s"'<>]*@/g, `//${REDACTED}@`)
    .replace(/(\/\/[^\s"'<>?]*)\?[^\s"'<>#]*/g, `$1?${REDACTED}`);
}

/** A parsed URL as it may be printed: scheme and host only (no credentials, path or query). */
export function urlOrigin(url: URL): string {
  return `${url.protocol}//${url.host}`;
}
