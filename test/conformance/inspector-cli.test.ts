import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { ChildServers } from '../support/child-server.js';
import { assertSuiteInstalled, NODE22 } from './conformance.runner.js';

// The MCP Inspector CLI (@modelcontextprotocol/inspector, devDependency; it wants Node 22) drives
// every built example over stdio, SSE and streamable HTTP: listing, a task start, a resource read.
const INSPECTOR = fileURLToPath(
  new URL(
    '../../node_modules/@modelcontextprotocol/inspector/clients/launcher/build/index.js',
    import.meta.url,
  ),
);
const CATALOG = mkdtempSync(join(tmpdir(), 'rmk-inspector-'));

const EXAMPLES = {
  sleeper: ['--tool-name', 'sleep_task', '--tool-arg', 'duration_s=1'],
  navigation: ['--tool-name', 'navigate_to', '--tool-arg', 'goal=kitchen'],
  'perception-watcher': ['--tool-name', 'watch_for', '--tool-arg', 'label=person'],
} as const;

type Transport = 'stdio' | 'sse' | 'streamable-http';
/**
 * Every example once, every transport with one example (the transports are the kit's, the same code
 * for every example), stdio (how the Inspector launches a server) with two: each Inspector launch
 * costs a Node 22 start, and 9 pairings took ~95 s of `npm test`.
 */
const TRANSPORTS: Record<keyof typeof EXAMPLES, readonly Transport[]> = {
  sleeper: ['stdio', 'sse', 'streamable-http'],
  navigation: ['streamable-http'],
  'perception-watcher': ['stdio'],
};

function inspect(
  target: readonly string[],
  method: readonly string[],
): Promise<{ code: number; out: string }> {
  return new Promise((resolve) => {
    execFile(
      NODE22,
      [INSPECTOR, '--cli', ...target, ...method],
      {
        timeout: 60_000,
        env: { PATH: process.env.PATH ?? '', LOG_LEVEL: 'warn', MCP_CATALOG_PATH: join(CATALOG, 'mcp.json') },
      },
      (err, stdout, stderr) =>
        resolve({ code: err ? Number(err.code ?? 1) : 0, out: `${stdout}\n${stderr}` }),
    );
  });
}

beforeAll(() => assertSuiteInstalled());
afterAll(() => rmSync(CATALOG, { recursive: true, force: true }));

describe.each(Object.keys(EXAMPLES) as (keyof typeof EXAMPLES)[])(
  'MCP Inspector CLI drives %s',
  (example) => {
    const main = fileURLToPath(new URL(`../../examples/${example}/dist/main.js`, import.meta.url));
    const servers = new ChildServers(main);
    beforeAll(() => servers.assertBuilt());
    afterAll(() => servers.cleanup());

    it.each(TRANSPORTS[example])(
      'over %s with no error',
      async (transport) => {
        const target =
          transport === 'stdio' ? [process.execPath, main] : [(await servers.startHttp(transport)).url];
        const listed = await inspect(target, ['--method', 'tools/list']);
        expect([listed.code, listed.out]).toEqual([0, expect.stringContaining('"tools"')]);
        const called = await inspect(target, ['--method', 'tools/call', ...EXAMPLES[example]]);
        expect(called.code).toBe(0);
        expect(called.out).toMatch(/"task_id"/);
        expect(called.out).not.toMatch(/"isError": true/);
        const read = await inspect(target, ['--method', 'resources/read', '--uri', 'tasks://running']);
        expect([read.code, read.out]).toEqual([0, expect.stringContaining('tasks://running')]);
        if (transport !== 'stdio') {
          // the one-shot CLI session is gone, and the task it started is still there (tasks outlive sessions)
          const listedTasks = await inspect(target, ['--method', 'tools/call', '--tool-name', 'list_tasks']);
          expect(listedTasks.out).toMatch(/\\"task_id\\"/);
          expect(listedTasks.out).not.toMatch(/\\"state\\":\\"cancelled\\"/);
        }
      },
      120_000,
    );
  },
);
