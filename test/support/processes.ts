import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { createServer } from 'node:http';
import { type AddressInfo } from 'node:net';
import { waitFor } from './until.js';

/**
 * Child-process helpers for the process-level tests (built examples run as real processes). Every
 * child a test starts is tracked by a {@link Resources} and reaped in afterEach/afterAll: killed
 * and waited for, also when the test failed.
 */

/** Throws a clear error when a built entry point is missing. */
export function requireBuilt(...files: string[]): void {
  for (const file of files)
    if (!existsSync(file)) throw new Error(`${file} is missing: run "npm run build" first`);
}

/** True while a process with this pid exists. */
export function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/** How long {@link exitOf} waits, after the exit, for the child's pipes to drain. */
const DRAIN_AFTER_EXIT_MS = 5_000;

/**
 * Resolves with the child's exit code (null when a signal ended it) once it has exited and what it
 * wrote to its pipes has been read ('close'), so a test can assert on its last output lines. A
 * grandchild holding a pipe open does not hold this up for more than a few seconds.
 */
export function exitOf(child: ChildProcess): Promise<number | null> {
  const exited = child.exitCode !== null || child.signalCode !== null;
  const drained = [child.stdout, child.stderr].every((pipe) => !pipe || pipe.closed);
  if (exited && drained) return Promise.resolve(child.exitCode);
  return new Promise((resolveExit) => {
    let grace: NodeJS.Timeout | undefined;
    const done = (): void => {
      clearTimeout(grace);
      child.off('close', done);
      child.off('exit', onExit);
      resolveExit(child.exitCode);
    };
    const onExit = (): void => {
      grace = setTimeout(done, DRAIN_AFTER_EXIT_MS);
    };
    child.once('close', done);
    if (exited) onExit();
    else child.once('exit', onExit);
  });
}

/** Kills `child` (SIGKILL unless told otherwise) if it still runs, and waits until it is gone. */
export async function reap(child: ChildProcess, signal: NodeJS.Signals = 'SIGKILL'): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null || child.pid === undefined) return;
  const gone = exitOf(child);
  child.kill(signal);
  await gone;
}

/** Every child, client and server a test starts; `cleanup()` in afterEach stops and reaps them all. */
export class Resources {
  private readonly children: ChildProcess[] = [];
  private readonly closers: (() => Promise<unknown>)[] = [];

  track(child: ChildProcess): ChildProcess {
    this.children.push(child);
    return child;
  }

  onCleanup(close: () => Promise<unknown>): void {
    this.closers.push(close);
  }

  /** Closes clients and servers, then kills every child still running and waits until it is gone. */
  async cleanup(): Promise<void> {
    await Promise.allSettled(this.closers.splice(0).map((close) => close()));
    await Promise.allSettled(this.children.splice(0).map((child) => reap(child)));
  }
}

/** A spawned process with its output so far. */
export interface Spawned {
  readonly child: ChildProcess;
  stdout(): string;
  stderr(): string;
  /** A reason to stop waiting when the process is gone (for `waitFor`'s `diagnose`). */
  exited(): string | undefined;
}

/** Spawns `node main` with a clean environment (PATH, LOG_LEVEL=info and `env`), tracked by `resources`. */
export function spawnNode(resources: Resources, main: string, env: Record<string, string>): Spawned {
  const child = resources.track(
    spawn(process.execPath, [main], {
      env: { PATH: process.env.PATH ?? '', LOG_LEVEL: 'info', ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    }),
  );
  let out = '';
  let err = '';
  child.stdout!.on('data', (chunk: Buffer) => (out += chunk.toString()));
  child.stderr!.on('data', (chunk: Buffer) => (err += chunk.toString()));
  return {
    child,
    stdout: () => out,
    stderr: () => err,
    exited: () =>
      child.exitCode !== null || child.signalCode !== null
        ? `it exited (${String(child.exitCode ?? child.signalCode)}): ${err}`
        : undefined,
  };
}

/** Waits for the `"url":"http://…"` a server logs once it listens; fails at once if it exits. */
export function listeningUrl(spawned: Pick<Spawned, 'stderr' | 'exited'>, limitMs = 30_000): Promise<string> {
  return waitFor(
    'the server to log its listening URL',
    () => /"url":"(http:[^"]+)"/.exec(spawned.stderr())?.[1],
    limitMs,
    spawned.exited,
  );
}

/**
 * A port that was free a moment ago, for a process that must know a URL before it starts (the OS
 * picked it). Prefer port 0 wherever the listener can report its port instead.
 */
export async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolveListen) => server.listen(0, '127.0.0.1', () => resolveListen()));
  const { port } = server.address() as AddressInfo;
  await new Promise((resolveClose) => server.close(resolveClose));
  return port;
}
