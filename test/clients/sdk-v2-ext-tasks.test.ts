import { spawn } from 'node:child_process';
import { resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { exitOf, Resources } from '../support/processes.js';
import {
  CLIENT_TIMEOUT_MS,
  expectScenario,
  ROOT,
  runClient,
  startNavigation,
} from '../support/real-clients.js';

const resources = new Resources();
let url = '';
beforeAll(async () => {
  url = await startNavigation(resources);
});
afterAll(() => resources.cleanup());

interface Outcome {
  status: string;
  result?: { content: { type: string; text?: string }[]; isError?: boolean; structuredContent?: unknown };
  error?: { name: string; message: string };
}

/** One navigate_to through test/support/ext-tasks.client.mjs (the SDK v2 client + ext-tasks, a child process). */
async function extTasksDrive(
  goal: string,
  action: 'settle' | 'cancel',
): Promise<{ created: string; outcome: Outcome }> {
  const child = resources.track(
    spawn(
      process.execPath,
      [
        resolve(ROOT, 'test/support/ext-tasks.client.mjs'),
        url,
        'navigate_to',
        JSON.stringify({ goal }),
        action,
      ],
      { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] },
    ),
  );
  let out = '';
  let err = '';
  child.stdout!.on('data', (chunk: Buffer) => (out += chunk.toString()));
  child.stderr!.on('data', (chunk: Buffer) => (err += chunk.toString()));
  const code = await exitOf(child);
  const lines = out
    .split('\n')
    .filter((line) => line.startsWith('{'))
    .map((line) => JSON.parse(line) as { created?: string; outcome?: Outcome });
  const outcome = lines.at(-1)?.outcome;
  if (code !== 0 || !outcome) throw new Error(`ext-tasks client exited ${String(code)}: ${out}${err}`);
  return { created: lines[0]!.created!, outcome };
}

describe('the SDK v2 client (2026-07-28) on the built navigation example', () => {
  it(
    'lists, calls, follows a drive, waits for an earlier trigger and cancels (structuredContent)',
    async () => {
      expectScenario(await runClient(resources, 'sdk-v2.client.mjs', [url]));
    },
    CLIENT_TIMEOUT_MS,
  );

  it(
    'with @modelcontextprotocol/ext-tasks: a drive runs as a 2026 task to completion',
    async () => {
      const { created, outcome } = await extTasksDrive('kitchen', 'settle');
      expect(created).toBe('task');
      expect(outcome.error).toBeUndefined();
      expect(outcome.status).toBe('completed');
      expect(outcome.result!.isError).toBeUndefined();
      const text = outcome.result!.content.find((block) => block.type === 'text')!.text!;
      expect(JSON.parse(text)).toMatchObject({ arrived: true, goal: 'kitchen', zone: 'kitchen' });
    },
    CLIENT_TIMEOUT_MS,
  );

  it(
    'with @modelcontextprotocol/ext-tasks: a cancelled drive reads as cancelled',
    async () => {
      const { created, outcome } = await extTasksDrive('dock', 'cancel');
      expect(created).toBe('task');
      expect(outcome).toEqual({ status: 'cancelled' });
    },
    CLIENT_TIMEOUT_MS,
  );
});
