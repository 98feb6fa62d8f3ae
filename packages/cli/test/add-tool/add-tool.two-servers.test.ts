/**
 * `add tool --server X` in a project with two servers, checked by running the generated project's
 * own tests (its jest, its tsconfig) against the built kit: each generated test must boot the
 * server its tool was added to. Process suite: it runs `dist/` (`npm run build` first).
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from '@jest/globals';
import { generateProject } from '../../../create-robot-mcp-server/src/index.js';
import { REPO_ROOT } from '../../../create-robot-mcp-server/test/support/typecheck.js';
import { addTool } from '../../src/add-tool/add-tool.command.js';
import { read, typecheckProject } from '../support/project.fixture.js';

const DOCK_SERVER = `import { CapabilityServer, Tool } from '@robot-mcp-kit/server';

@CapabilityServer({ name: 'dock', version: '0.1.0' })
export class DockServer {
  @Tool({ description: 'Whether the dock is free', annotations: { readOnlyHint: true } })
  dockStatus(): { free: boolean } {
    return { free: true };
  }
}
`;

let base: string;
let root: string;

beforeAll(() => {
  // Outside node_modules (Jest does not look for tests there), with the workspace's packages.
  base = mkdtempSync(join(tmpdir(), 'cli-two-servers-'));
  root = join(base, 'my-nav');
  generateProject(
    {
      directory: root,
      name: 'my-nav',
      description: 'Drives the base',
      transport: 'stdio',
      longRunningTool: 'patrol',
      plainTool: 'get_status',
      firstToolLongRunning: true,
      firstToolActuates: true,
      force: false,
    },
    '0.1.0',
  );
  symlinkSync(join(REPO_ROOT, 'node_modules'), join(root, 'node_modules'), 'dir');
  writeFileSync(join(root, 'src', 'dock.server.ts'), DOCK_SERVER);
});

afterAll(() => rmSync(base, { recursive: true, force: true }));

/** Runs the project's own Jest; resolves with its exit code and output. */
function runProjectTests(dir: string): Promise<{ code: number; output: string }> {
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      ['--experimental-vm-modules', join('node_modules', 'jest', 'bin', 'jest.js'), '--ci'],
      { cwd: dir, maxBuffer: 16 * 1024 * 1024, timeout: 5 * 60_000 },
      (error, stdout, stderr) => {
        const code = error ? (typeof error.code === 'number' ? error.code : 1) : 0;
        resolve({ code, output: `${stdout}${stderr}` });
      },
    );
  });
}

it('each generated test boots the server its tool was added to, and all of them pass', async () => {
  const dock = addTool({ root, name: 'open_gate', longRunning: true, server: 'src/dock.server.ts' });
  const dockPlain = addTool({ root, name: 'gate_count', longRunning: false, server: 'src/dock.server.ts' });
  const nav = addTool({ root, name: 'scan_room', longRunning: true, server: 'src/my-nav.server.ts' });
  expect([dock.className, dockPlain.className, nav.className]).toEqual([
    'DockServer',
    'DockServer',
    'MyNavServer',
  ]);
  // the project's harness boots MyNavServer: the dock's tests get a harness of their own
  expect(dock.created).toEqual(['test/support/dock-server.harness.ts', 'test/open-gate.test.ts']);
  expect(dockPlain.created).toEqual(['test/gate-count.test.ts']);
  expect(nav.created).toEqual(['test/scan-room.test.ts']);
  expect(read(root, 'test/support/dock-server.harness.ts')).toContain(
    "import { DockServer } from '../../src/dock.server.js';",
  );
  expect(read(root, 'test/open-gate.test.ts')).toContain("from './support/dock-server.harness.js'");
  expect(read(root, 'test/scan-room.test.ts')).toContain("from './support/harness.js'");
  expect(typecheckProject(root)).toEqual([]);

  const { code, output } = await runProjectTests(root);
  expect({ code, summary: /Tests:.*/.exec(output)?.[0] }).toEqual({
    code: 0,
    summary: expect.stringMatching(/^Tests:\s+\d+ passed, \d+ total$/),
  });
}, 300_000);
