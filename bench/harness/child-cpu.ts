import { readdirSync, readFileSync } from 'node:fs';

/**
 * Nanosecond CPU time a child process has used so far, every thread (the main thread, libuv's
 * pool, V8's GC helpers), from `/proc/<pid>/task/<tid>/schedstat` (Linux; its first field is the
 * time on a CPU in ns), in µs; NaN where /proc is not there or the process is gone. Precise enough
 * for a round of a few dozen ms, which `/proc/<pid>/stat`'s 10 ms ticks are not.
 */
export function childCpuUs(pid: number | null | undefined): number {
  if (pid === null || pid === undefined) return Number.NaN;
  try {
    let ns = 0;
    for (const tid of readdirSync(`/proc/${pid}/task`)) {
      const fields = readFileSync(`/proc/${pid}/task/${tid}/schedstat`, 'utf8').split(' ');
      ns += Number(fields[0]);
    }
    return ns / 1000;
  } catch {
    return Number.NaN;
  }
}
