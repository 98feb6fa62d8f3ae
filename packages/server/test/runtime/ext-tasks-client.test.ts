import { spawn } from 'node:child_process';
import { resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from '@jest/globals';
import { CallToolResultV2Schema, GetTaskResultV2Schema } from '@modelcontextprotocol/ext-tasks/core/v2';
import { InMemoryEventTransport, MemoryLogger } from '@robot-mcp-kit/core/testing';
import { bootstrap } from '@robot-mcp-kit/server';
import { until } from '../fixtures/harness.js';
import { RoverServer } from '../fixtures/rover.server.js';
import { WireClient } from '../../../../test/support/mcp-2026.wire-client.js';
import { exitOf, Resources } from '../../../../test/support/processes.js';

const ROOT = fileURLToPath(new URL('../../../../', import.meta.url));
const CLIENT = resolve(ROOT, 'test/support/ext-tasks.client.mjs');
const resources = new Resources();
afterEach(() => resources.cleanup());

async function serve(): Promise<{ rover: RoverServer; url: string }> {
  const app = bootstrap(RoverServer, {
    env: {},
    logger: new MemoryLogger(),
    eventTransport: new InMemoryEventTransport(),
  });
  const info = await app.listen({ kind: 'streamable-http', host: '127.0.0.1', port: 0 });
  resources.onCleanup(() => app.close({ timeoutMs: 500 }));
  return { rover: app.instance as RoverServer, url: info.url! };
}

/** Opens every gate of the drive body as it comes, until the drive's 4 steps are through. */
async function driveThrough(rover: RoverServer): Promise<void> {
  for (let step = 0; step < 4; step += 1) {
    await until(() => rover.gates.length > 0, `drive step ${step + 1}`);
    rover.gates.shift()!();
  }
}

interface Outcome {
  status: string;
  result?: { content: { text: string }[]; isError?: boolean };
  error?: { name: string; message: string };
}

/** Runs the ext-tasks client (a child process) on one call; resolves with the lines it printed. */
async function extTasksCall(url: string, args: object, action: 'settle' | 'cancel') {
  const child = resources.track(
    spawn(process.execPath, [CLIENT, url, 'drive', JSON.stringify(args), action], {
      cwd: ROOT,
      stdio: ['ignore', 'pipe', 'pipe'],
    }),
  );
  let out = '';
  let err = '';
  child.stdout!.on('data', (chunk: Buffer) => (out += chunk.toString()));
  child.stderr!.on('data', (chunk: Buffer) => (err += chunk.toString()));
  const lines = () =>
    out
      .split('\n')
      .filter((line) => line.startsWith('{'))
      .map((line) => JSON.parse(line));
  return {
    created: () => until(() => lines().length > 0 || child.exitCode !== null, 'the call to answer'),
    outcome: async (): Promise<Outcome> => {
      const code = await exitOf(child);
      const last = lines().at(-1) as { outcome?: Outcome } | undefined;
      if (code !== 0 || !last?.outcome) throw new Error(`the client exited ${String(code)}: ${out}${err}`);
      return last.outcome;
    },
    kind: () => (lines()[0] as { created?: string } | undefined)?.created,
  };
}

describe('2026-07-28 tasks through the SDK v2 client with @modelcontextprotocol/ext-tasks', () => {
  it('reads a finished long-running call as completed, with its result', async () => {
    const { rover, url } = await serve();
    const call = await extTasksCall(url, { distance_m: 3 }, 'settle');
    await driveThrough(rover);
    const outcome = await call.outcome();
    expect(call.kind()).toBe('task');
    expect(outcome.error).toBeUndefined();
    expect(outcome.status).toBe('completed');
    expect(outcome.result!.isError).toBeUndefined();
    expect(JSON.parse(outcome.result!.content[0]!.text)).toEqual({ driven_m: 3 });
  });

  it('reads a cancelled call as cancelled', async () => {
    const { url } = await serve();
    const call = await extTasksCall(url, { distance_m: 3 }, 'cancel');
    const outcome = await call.outcome();
    expect(call.kind()).toBe('task');
    expect(outcome).toEqual({ status: 'cancelled' });
  });

  it('every task answer parses with the published 2026-07-28 schemas, a failed task too', async () => {
    const { rover, url } = await serve();
    const wire = new WireClient(url, true);
    for (const fail of [false, true]) {
      const created = await wire.result('tools/call', { name: 'drive', arguments: { distance_m: 1, fail } });
      await driveThrough(rover);
      let got: Record<string, unknown> = {};
      await until(async () => {
        got = await wire.result('tasks/get', { taskId: created.taskId });
        return got.status !== 'working';
      }, 'the task to end');
      expect(GetTaskResultV2Schema.safeParse(got).error?.issues).toBeUndefined();
      expect(CallToolResultV2Schema.safeParse(got.result).error?.issues).toBeUndefined();
      expect(got.result).toMatchObject({ resultType: 'complete', ...(fail ? { isError: true } : {}) });
    }
    const plain = await wire.request('tools/call', { name: 'echo', arguments: { text: 'hi' } });
    expect(CallToolResultV2Schema.safeParse(plain.result).error?.issues).toBeUndefined();
  });
});
