let lastMs = Number.NaN;
let lastIso = '';

/**
 * `date.toISOString()`, remembered for the last millisecond formatted: a task's start, its events and
 * its TaskInfo snapshots mostly fall in the same millisecond, and each was formatted again (profiled
 * at ~0.3 µs a time on the `@LongRunningTool` path). Throws as `toISOString` does on an invalid date.
 */
export function isoTime(date: Date): string {
  const ms = date.getTime();
  if (ms !== lastMs) {
    lastIso = date.toISOString();
    lastMs = ms;
  }
  return lastIso;
}
