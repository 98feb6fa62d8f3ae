import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { expect } from '@jest/globals';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { type CallToolResult } from '@modelcontextprotocol/sdk/types.js';

/** Helpers for smoke tests of a built server (`dist/main.js`) run as a child process. */
export class ChildServers {
  private readonly children: ChildProcess[] = [];
  private readonly clients: Client[] = [];

  /** @param main path of the built entry point; @param baseEnv variables every child gets. */
  constructor(
    readonly main: string,
    private readonly baseEnv: Record<string, string> = {},
  ) {}

  /** Throws a clear error when the build is missing. */
  assertBuilt(): void {
    if (!existsSync(this.main)) throw new Error(`${this.main} is missing: run "npm run build" first`);
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
    const child = spawn(process.execPath, [this.main], {
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
    const url = await new Promise<string>((resolveUrl, reject) => {
      const timer = setTimeout(() => reject(new Error(`no listening line in: ${stderr()}`)), 15_000);
      const check = (): void => {
        const match = /"url":"(http:[^"]+)"/.exec(stderr());
        if (!match?.[1]) return;
        clearTimeout(timer);
        child.stderr!.off('data', check);
        resolveUrl(match[1]);
      };
      child.stderr!.on('data', check);
      child.once('exit', (code) => reject(new Error(`exited ${String(code)}: ${stderr()}`)));
    });
    return { child, url, stderr };
  }

  /**
   * Connects an SDK client over stdio (the client spawns the server). `closeAndWait()` closes stdin
   * and resolves `true` once the server process is gone (`false` if it is still there after 2 s).
   */
  async connectStdio(extra: Record<string, string> = {}): Promise<{
    client: Client;
    stderr: () => string;
    closeAndWait: () => Promise<boolean>;
  }> {
    const transport = new StdioClientTransport({
      command: process.execPath,
      args: [this.main],
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
        for (let i = 0; i < 100 && isAlive(pid); i += 1) await new Promise((r) => setTimeout(r, 20));
        return !isAlive(pid);
      },
    };
  }

  /** Registers a client to close in {@link cleanup}. */
  track(client: Client): Client {
    this.clients.push(client);
    return client;
  }

  /** Closes tracked clients and kills children still running; call it in afterEach. */
  async cleanup(): Promise<void> {
    await Promise.allSettled(this.clients.splice(0).map((c) => c.close()));
    for (const child of this.children.splice(0)) if (child.exitCode === null) child.kill('SIGKILL');
  }
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

/** Resolves with the child's exit code. */
export function exitOf(child: ChildProcess): Promise<number | null> {
  return child.exitCode !== null
    ? Promise.resolve(child.exitCode)
    : new Promise((resolveExit) => child.once('exit', (code) => resolveExit(code)));
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
