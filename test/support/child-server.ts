import { type ChildProcess, spawn } from 'node:child_process';
import { expect } from '@jest/globals';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { type CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { isAlive, listeningUrl, reap, requireBuilt } from './processes.js';
import { until, waitFor } from './until.js';

export { exitOf, isAlive } from './processes.js';

/** Helpers for smoke tests of a built server (`dist/main.js`) run as a child process. */
export class ChildServers {
  private readonly children: ChildProcess[] = [];
  private readonly clients: Client[] = [];

  /**
   * @param main path of the built entry point; @param baseEnv variables every child gets;
   * @param nodeArgs node options before `main` (`['--import', './otel.mjs']`).
   */
  constructor(
    readonly main: string,
    private readonly baseEnv: Record<string, string> = {},
    private readonly nodeArgs: readonly string[] = [],
  ) {}

  /** Throws a clear error when the build is missing. */
  assertBuilt(): void {
    requireBuilt(this.main);
  }

  /** A clean environment (PATH, LOG_LEVEL=info, the base variables) plus `extra`. */
  env(extra: Record<string, string> = {}): Record<string, string> {
    return { PATH: process.env.PATH ?? '', LOG_LEVEL: 'info', ...this.baseEnv, ...extra };
  }

  /** Spawns the server; it is killed by {@link cleanup}. */
  spawn(
    extra: Record<string, string> = {},
    stdin: 'ignore' | 'pipe' = 'pipe',
  ): { child: ChildProcess; stderr: () => string } {
    const child = spawn(process.execPath, [...this.nodeArgs, this.main], {
      env: this.env(extra),
      stdio: [stdin, 'pipe', 'pipe'],
    });
    this.children.push(child);
    let log = '';
    child.stderr!.on('data', (chunk: Buffer) => (log += chunk.toString()));
    return { child, stderr: () => log };
  }

  /** Starts the server over an HTTP transport on a free port; resolves with the URL it logged. */
  async startHttp(
    kind: 'sse' | 'streamable-http',
    extra: Record<string, string> = {},
  ): Promise<{ child: ChildProcess; url: string; stderr: () => string }> {
    const { child, stderr } = this.spawn({ MCP_TRANSPORT: kind, MCP_PORT: '0', ...extra }, 'ignore');
    const exited = (): string | undefined =>
      child.exitCode !== null || child.signalCode !== null
        ? `exited ${String(child.exitCode ?? child.signalCode)}: ${stderr()}`
        : undefined;
    const url = await listeningUrl({ stderr, exited });
    return { child, url, stderr };
  }

  /**
   * Connects an SDK client over stdio (the client spawns the server). `closeAndWait()` closes stdin
   * and resolves `true` once the server process is gone (`false` if it is still there after 15 s).
   */
  async connectStdio(extra: Record<string, string> = {}): Promise<{
    client: Client;
    stderr: () => string;
    closeAndWait: () => Promise<boolean>;
  }> {
    const transport = new StdioClientTransport({
      command: process.execPath,
      args: [...this.nodeArgs, this.main],
      env: this.env(extra),
      stderr: 'pipe',
    });
    let log = '';
    transport.stderr?.on('data', (chunk: Buffer) => (log += chunk.toString()));
    const client = new Client({ name: 'stdio-test', version: '1' });
    await client.connect(transport);
    const pid = transport.pid!;
    return {
      client,
      stderr: () => log,
      closeAndWait: async () => {
        await client.close();
        return until(() => !isAlive(pid), 'the stdio server to exit').then(
          () => true,
          () => false,
        );
      },
    };
  }

  /** Registers a client to close in {@link cleanup}. */
  track(client: Client): Client {
    this.clients.push(client);
    return client;
  }

  /** Closes tracked clients, kills children still running and waits until they are gone; call it in afterEach. */
  async cleanup(): Promise<void> {
    await Promise.allSettled(this.clients.splice(0).map((c) => c.close()));
    await Promise.allSettled(this.children.splice(0).map((child) => reap(child)));
  }
}

/** Calls a tool that must succeed and parses its text content as JSON. */
export async function callJson(
  client: Client,
  name: string,
  args: Record<string, unknown> = {},
): Promise<Record<string, unknown>> {
  const result = (await client.callTool({ name, arguments: args })) as CallToolResult;
  expect(result.isError).toBeFalsy();
  return JSON.parse((result.content[0] as { text: string }).text) as Record<string, unknown>;
}

/**
 * Polls `get_task` until the task is no longer running and returns its last state (a deadline only
 * as a safety net: the task's own duration decides when it ends, however loaded the machine is).
 */
export async function waitUntilTaskOver(
  client: Client,
  taskId: unknown,
  limitMs = 60_000,
): Promise<Record<string, unknown>> {
  return waitFor(
    `task ${String(taskId)} to finish`,
    async () => {
      const task = await callJson(client, 'get_task', { task_id: taskId });
      return task.state === 'running' ? undefined : task;
    },
    limitMs,
  );
}
