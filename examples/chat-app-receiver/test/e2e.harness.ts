// Real processes and real HTTP for the end-to-end tests. They assume `npm run build` has run.
import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { type AddressInfo } from 'node:net';
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import express from 'express';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { type CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { type JsonObject, type TaskInfoJson } from '@robot-mcp-kit/core';
import { type EventReceiver, type EventReceiverOptions, expressEventReceiver } from '@robot-mcp-kit/receiver';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '../../..');
export const SLEEPER_MAIN = resolve(root, 'examples/sleeper/dist/main.js');
export const RECEIVER_MAIN = resolve(root, 'examples/chat-app-receiver/dist/main.js');
export const EVENTS_PATH = '/api/agent/events';
export const SECRET = 'e2e-secret-3f6c0a9d';

export function requireBuilt(...files: string[]): void {
  for (const file of files)
    if (!existsSync(file)) throw new Error(`${file} is missing: run "npm run build" first`);
}

/** Every child, client and server a test starts; `cleanup()` in afterEach stops them all. */
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

  async cleanup(): Promise<void> {
    await Promise.allSettled(this.closers.splice(0).map((close) => close()));
    for (const child of this.children.splice(0)) if (child.exitCode === null) child.kill('SIGKILL');
  }
}

/** A spawned process with its output so far. */
export interface Spawned {
  readonly child: ChildProcess;
  stdout(): string;
  stderr(): string;
}

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
  return { child, stdout: () => out, stderr: () => err };
}

/** The sleeper over streamable HTTP on `port` (default: a free one), once it logs its URL. */
export async function startSleeper(
  resources: Resources,
  env: Record<string, string>,
  port = 0,
): Promise<Spawned & { url: string }> {
  const sleeper = spawnNode(resources, SLEEPER_MAIN, {
    MCP_TRANSPORT: 'streamable-http',
    MCP_PORT: String(port),
    ...env,
  });
  const url = await waitFor(
    'the sleeper to listen',
    () => /"url":"(http:[^"]+)"/.exec(sleeper.stderr())?.[1],
    15_000,
    () => (sleeper.child.exitCode !== null ? `it exited: ${sleeper.stderr()}` : undefined),
  );
  return { ...sleeper, url };
}

export async function connectClient(resources: Resources, url: string): Promise<Client> {
  const client = new Client({ name: 'e2e-test', version: '1' });
  await client.connect(new StreamableHTTPClientTransport(new URL(url)));
  resources.onCleanup(() => client.close());
  return client;
}

/** Starts `sleep_task` and returns its task_id. */
export async function startSleep(client: Client, args: JsonObject): Promise<string> {
  const result = (await client.callTool({ name: 'sleep_task', arguments: args })) as CallToolResult;
  expectNoError(result);
  return (result.structuredContent as { task_id: string }).task_id;
}

export async function getTask(client: Client, taskId: string): Promise<TaskInfoJson> {
  const result = (await client.callTool({
    name: 'get_task',
    arguments: { task_id: taskId },
  })) as CallToolResult;
  expectNoError(result);
  return JSON.parse((result.content[0] as { text: string }).text) as TaskInfoJson;
}

/** Polls `get_task` until the task is no longer running. */
export async function waitUntilFinished(client: Client, taskId: string): Promise<TaskInfoJson> {
  let last: TaskInfoJson | undefined;
  return waitFor(
    `task ${taskId} to finish`,
    async () => {
      last = await getTask(client, taskId);
      return last.state === 'running' ? undefined : last;
    },
    20_000,
  );
}

function expectNoError(result: CallToolResult): void {
  if (result.isError) throw new Error(`tool error: ${JSON.stringify(result.content)}`);
}

/** An Express app with the receiver at POST /api/agent/events, on 127.0.0.1. */
export interface RunningReceiver {
  readonly url: string;
  readonly port: number;
  readonly receiver: EventReceiver;
  /** Stops intake and the HTTP server, closing open connections (a receiver that goes away). */
  stop(): Promise<void>;
}

export async function startReceiver(
  resources: Resources,
  options: EventReceiverOptions,
  port = 0,
): Promise<RunningReceiver> {
  const handler = expressEventReceiver(options);
  const server: Server = createServer(express().post(EVENTS_PATH, handler));
  await new Promise<void>((resolveListen, reject) => {
    server.once('error', reject);
    server.listen(port, '127.0.0.1', () => resolveListen());
  });
  const bound = (server.address() as AddressInfo).port;
  let stopped: Promise<void> | undefined;
  const stop = (): Promise<void> =>
    (stopped ??= (async () => {
      await handler.receiver.close();
      await new Promise<void>((resolveClose) => {
        server.close(() => resolveClose());
        server.closeAllConnections();
      });
    })());
  resources.onCleanup(stop);
  return { url: `http://127.0.0.1:${bound}${EVENTS_PATH}`, port: bound, receiver: handler.receiver, stop };
}

/** A port that was free a moment ago (for a process that must know its callback URL up front). */
export async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolveListen) => server.listen(0, '127.0.0.1', () => resolveListen()));
  const { port } = server.address() as AddressInfo;
  await new Promise((resolveClose) => server.close(resolveClose));
  return port;
}

/**
 * Polls `probe` every 25 ms until it returns a value other than undefined/false; fails with
 * `what` (and `diagnose()`) after `timeoutMs`, or at once when `diagnose()` reports a reason.
 */
export async function waitFor<T>(
  what: string,
  probe: () => T | undefined | false | Promise<T | undefined | false>,
  timeoutMs = 15_000,
  diagnose: () => string | undefined = () => undefined,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value !== undefined && value !== false) return value;
    const reason = diagnose();
    if (reason !== undefined) throw new Error(`while waiting for ${what}: ${reason}`);
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 25));
  }
}

export const exitOf = (child: ChildProcess): Promise<number | null> =>
  child.exitCode !== null
    ? Promise.resolve(child.exitCode)
    : new Promise((r) => child.once('exit', (code) => r(code)));

/** 1..n */
export const range = (n: number): number[] => Array.from({ length: n }, (_, i) => i + 1);
