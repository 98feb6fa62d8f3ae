import { createServer } from 'node:http';
import { type AddressInfo } from 'node:net';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { cliVersion, type CliIo, runCli } from '../src/cli.program.js';
import { generatedProject, read } from './support/project.fixture.js';

describe('runCli', () => {
  let root: string;
  let cleanup: () => void;
  let out: { stdout: string; stderr: string };

  const io = (overrides: Partial<CliIo> = {}): CliIo => ({
    stdout: (text) => void (out.stdout += text),
    stderr: (text) => void (out.stderr += text),
    cwd: join(root, 'src'),
    env: {},
    nodeVersion: '20.19.0',
    ...overrides,
  });

  beforeEach(() => {
    ({ root, cleanup } = generatedProject());
    out = { stdout: '', stderr: '' };
  });

  afterEach(() => cleanup());

  it('adds a long-running tool from anywhere inside the project', async () => {
    expect(await runCli(['add', 'tool', 'scan_room', '--long-running'], io())).toBe(0);
    expect(out.stdout).toBe(
      'Added @LongRunningTool scan_room to MyNavServer in .., marked as a tool that acts on the world ' +
        '(actuates: true; --read-only hides it) (say --no-actuates if not):\n' +
        '  modified src/my-nav.server.ts\n' +
        '  created  test/scan-room.test.ts\n' +
        'Next: write the body, then npm test.\n',
    );
    expect(read(root, 'src/my-nav.server.ts')).toContain('async scanRoom(');
  });

  it('adds a plain tool by default, in the project given with --project', async () => {
    expect(await runCli(['--project', root, 'add', 'tool', 'get_battery'], io({ cwd: '/' }))).toBe(0);
    expect(out.stdout).toContain(`Added @Tool get_battery to MyNavServer in ${root.slice(1)}, marked as`);
    expect(out.stdout).toContain(
      'only reads (readOnlyHint: true; --read-only offers it) (say --actuates if not):',
    );
  });

  it('asks on a terminal whether the tool acts on the world, when no flag says it', async () => {
    const asked: [string, boolean][] = [];
    const confirm = async (message: string, defaultAnswer: boolean) => {
      asked.push([message, defaultAnswer]);
      return true;
    };
    expect(await runCli(['add', 'tool', 'release'], { ...io({ cwd: root }), confirm })).toBe(0);
    expect(asked).toEqual([
      ['Does release act on the world (move, grip, switch)? --read-only hides such tools', false],
    ]);
    expect(out.stdout).toContain('marked as a tool that acts on the world');
    expect(out.stdout).not.toContain('(say');
    expect(read(root, 'src/my-nav.server.ts')).toMatch(/actuates: true,[^@]*\}\)\s*release\(/);
    asked.length = 0;
    expect(await runCli(['add', 'tool', 'look', '--no-actuates'], { ...io({ cwd: root }), confirm })).toBe(0);
    expect(asked).toEqual([]);
  });

  it('adds a plain tool that acts on the world with --actuates', async () => {
    expect(await runCli(['add', 'tool', 'grasp', '--actuates'], io({ cwd: root }))).toBe(0);
    expect(out.stdout).toContain(
      'Added @Tool grasp to MyNavServer in ., marked as a tool that acts on the world',
    );
    expect(out.stdout).not.toContain('(say');
    expect(read(root, 'src/my-nav.server.ts')).toMatch(/actuates: true,[^@]*\}\)\s*grasp\(/);
  });

  it('adds a trigger', async () => {
    expect(await runCli(['add', 'trigger', 'battery_below'], io({ cwd: root }))).toBe(0);
    expect(out.stdout).toContain('Added trigger battery_below (batteryBelowTrigger) in .:');
    expect(out.stdout).toContain('  modified src/plugins.ts (registered)');
    expect(existsSync(join(root, 'src/triggers/battery-below.trigger.ts'))).toBe(true);
  });

  it('prints a refusal in one line with its fix and exits 1', async () => {
    expect(await runCli(['add', 'tool', 'patrol'], io())).toBe(1);
    expect(out.stderr).toBe(
      'robot-mcp-kit: patrol: MyNavServer in src/my-nav.server.ts already has this tool; choose another name\n',
    );
    expect(await runCli(['add', 'tool', 'x'], io({ cwd: '/' }))).toBe(1);
    expect(out.stderr).toContain('no package.json found upwards');
  });

  it('runs the doctor and exits 1 when a check fails', async () => {
    const server = createServer((_req, res) => res.writeHead(204).end());
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/events`;
    try {
      const env = { RVC_CALLBACK_URL: url, RVC_EVENT_SECRET: 'x'.repeat(32) };
      const code = await runCli(['doctor', '--timeout', '2000'], io({ env }));
      expect(out.stdout).toContain(`callback          ${url} answered HTTP 204`);
      // the generated project is not installed here
      expect(out.stdout).toContain('FAIL  install');
      expect(code).toBe(1);
    } finally {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    }
    expect(await runCli(['doctor', '--timeout', 'soon'], io())).toBe(1);
    expect(out.stderr).toContain('robot-mcp-kit: --timeout: "soon" is not a positive number of milliseconds');
  });

  it('prints help and version, and exits 1 on unknown commands', async () => {
    expect(await runCli(['--help'], io())).toBe(0);
    expect(out.stdout).toContain('Usage: robot-mcp-kit [options] [command]');
    expect(await runCli(['add', 'tool', '--help'], io())).toBe(0);
    expect(out.stdout).toContain('--long-running');
    expect(await runCli(['--version'], io())).toBe(0);
    expect(out.stdout).toContain(cliVersion());
    expect(cliVersion()).toBe(
      (JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as { version: string })
        .version,
    );
    expect(await runCli(['fly'], io())).toBe(1);
    expect(out.stderr).toContain("unknown command 'fly'");
    expect(await runCli(['add', 'tool'], io())).toBe(1);
    expect(out.stderr).toContain("missing required argument 'name'");
  });
});
