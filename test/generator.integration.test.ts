/**
 * Integration: the scaffold generator and the robot-mcp-kit CLI, end to end, the way a robot team
 * uses them. Packs the kit from this workspace (run `npm run build` first), generates a project
 * non-interactively against the tarballs, installs it, builds it, runs its own tests, serves it
 * over stdio to the official SDK client, then grows it with `add tool` / `add trigger` and checks
 * that it still builds and passes. Slow (npm install): minutes, not seconds.
 */
import { execFile } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';

const ROOT = fileURLToPath(new URL('../', import.meta.url));
const GENERATOR_BIN = join(ROOT, 'packages/create-robot-mcp-server/dist/bin.js');
const MINUTE = 60_000;

/** The environment of the child processes: ours without npm's per-script variables. */
function childEnv(extra: Record<string, string> = {}): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [key, value] of Object.entries(process.env)) {
    if (
      value === undefined ||
      /^npm_/i.test(key) ||
      key === 'INIT_CWD' ||
      key.startsWith('RVC_') ||
      key.startsWith('MCP_')
    ) {
      continue;
    }
    env[key] = value;
  }
  return { ...env, ...extra };
}

interface RunResult {
  code: number;
  stdout: string;
  stderr: string;
}

/** Runs a command; resolves with its output, or rejects with it when the exit code is not 0. */
function run(
  command: string,
  args: readonly string[],
  cwd: string,
  options: { allowFailure?: boolean } = {},
): Promise<RunResult> {
  return new Promise((resolve, reject) => {
    execFile(
      command,
      [...args],
      { cwd, env: childEnv(), maxBuffer: 64 * 1024 * 1024, timeout: 10 * MINUTE },
      (error, stdout, stderr) => {
        const code = error ? (typeof error.code === 'number' ? error.code : 1) : 0;
        const result = { code, stdout: String(stdout), stderr: String(stderr) };
        if (code !== 0 && !options.allowFailure) {
          reject(
            new Error(
              `${command} ${args.join(' ')} (in ${cwd}) exited ${code}\n--- stdout\n${result.stdout}\n--- stderr\n${result.stderr}`,
            ),
          );
        } else {
          resolve(result);
        }
      },
    );
  });
}

const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';
const npx = process.platform === 'win32' ? 'npx.cmd' : 'npx';

/** Starts the built server over stdio and lists its tools with the official SDK client. */
async function listToolsOverStdio(project: string): Promise<{ tools: string[]; status: unknown }> {
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [join(project, 'dist', 'main.js')],
    cwd: project,
    env: childEnv({ MCP_TRANSPORT: 'stdio', LOG_LEVEL: 'warn' }),
    stderr: 'pipe',
  });
  const client = new Client({ name: 'integration', version: '1' });
  await client.connect(transport);
  try {
    const { tools } = await client.listTools();
    const status = await client.callTool({ name: 'get_status', arguments: { note: 'hi' } });
    return { tools: tools.map((tool) => tool.name).sort(), status: status.structuredContent };
  } finally {
    await client.close();
  }
}

describe('create-robot-mcp-server + robot-mcp-kit (integration)', () => {
  let work: string;
  let project: string;

  beforeAll(async () => {
    const missing = [
      GENERATOR_BIN,
      join(ROOT, 'packages/cli/dist/bin.js'),
      join(ROOT, 'packages/core/dist/index.js'),
      join(ROOT, 'packages/server/dist/index.js'),
    ].filter((file) => !existsSync(file));
    if (missing.length > 0) {
      throw new Error(`missing ${missing.join(', ')}: run "npm run build" before this test`);
    }
    work = mkdtempSync(join(tmpdir(), 'rmk-generator-'));
    const kit = join(work, 'kit');
    mkdirSync(kit);
    await run(
      npm,
      [
        'pack',
        '--workspace',
        'packages/core',
        '--workspace',
        'packages/server',
        '--workspace',
        'packages/cli',
        '--pack-destination',
        kit,
      ],
      ROOT,
    );
    expect(readdirSync(kit).sort()).toEqual([
      expect.stringMatching(/^robot-mcp-kit-cli-.*\.tgz$/),
      expect.stringMatching(/^robot-mcp-kit-core-.*\.tgz$/),
      expect.stringMatching(/^robot-mcp-kit-server-.*\.tgz$/),
    ]);

    const generated = await run(
      process.execPath,
      [GENERATOR_BIN, 'my-nav', '--yes', '--kit', kit, '--description', 'Integration robot'],
      work,
    );
    expect(generated.stdout).toContain('Next steps:');
    project = join(work, 'my-nav');
    await run(npm, ['install', '--prefer-offline', '--no-audit', '--no-fund'], project);
  }, 15 * MINUTE);

  afterAll(() => {
    if (work) rmSync(work, { recursive: true, force: true });
  });

  it(
    'builds and passes its own tests',
    async () => {
      await run(npm, ['run', 'build'], project);
      const tested = await run(npm, ['test'], project);
      expect(`${tested.stdout}${tested.stderr}`).toMatch(/Tests:\s+5 passed, 5 total/);
    },
    10 * MINUTE,
  );

  it(
    'serves its tools over stdio to the official SDK client',
    async () => {
      const { tools, status } = await listToolsOverStdio(project);
      expect(tools).toEqual(
        expect.arrayContaining(['cancel_task', 'get_status', 'get_task', 'list_tasks', 'patrol']),
      );
      expect(status).toEqual({ server: 'my-nav', status: 'ready', note: 'hi' });
    },
    2 * MINUTE,
  );

  it(
    'passes the doctor with the default settings',
    async () => {
      const doctor = await run(npx, ['robot-mcp-kit', 'doctor'], project);
      expect(doctor.stdout).toContain('No problems');
    },
    2 * MINUTE,
  );

  it(
    'stays green after add tool and add trigger',
    async () => {
      await run(npx, ['robot-mcp-kit', 'add', 'tool', 'scan_room', '--long-running'], project);
      await run(npx, ['robot-mcp-kit', 'add', 'trigger', 'battery_below'], project);
      await run(npm, ['run', 'build'], project);
      const tested = await run(npm, ['test'], project);
      expect(`${tested.stdout}${tested.stderr}`).toMatch(/Test Suites:\s+3 passed, 3 total/);
      const { tools } = await listToolsOverStdio(project);
      expect(tools).toContain('scan_room');
    },
    10 * MINUTE,
  );
});
