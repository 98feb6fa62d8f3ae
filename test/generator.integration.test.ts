/**
 * Integration: the scaffold generator and the robot-mcp-kit CLI, end to end, the way a robot team
 * uses them. Follows the local recipe of docs/generator.md as written (run `npm run build` first):
 * its `mkdir`, `npm pack` and generator lines, with this test's folders, so the recipe is known to
 * work before publication. Then installs the project, builds it, runs its own tests (which check
 * `--read-only`), serves it over stdio to the official SDK client, then grows it with `add tool` /
 * `add trigger` and checks that it still builds and passes. Slow (npm install): minutes.
 */
import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs';
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

/**
 * The shell lines of the local recipe in docs/generator.md (between the `local-recipe` markers)
 * that make the kit folder and the project — `mkdir`, `npm pack` and the generator — with the
 * recipe's /tmp folders replaced by this test's. Building and installing are done by the test.
 */
function localRecipe(kit: string, project: string): string[] {
  const doc = readFileSync(join(ROOT, 'docs/generator.md'), 'utf8');
  const block = /<!-- local-recipe[^>]*-->\s*```sh\n([\s\S]*?)```\s*<!-- \/local-recipe -->/.exec(doc);
  if (!block) throw new Error('docs/generator.md has no local-recipe block');
  const lines = block[1]!
    .split('\n')
    .filter((line) => /^(mkdir|npm pack|node packages\/create-robot-mcp-server)/.test(line))
    .map((line) => line.replaceAll('/tmp/robot-mcp-kit', kit).replaceAll('/tmp/my-nav', project));
  expect(lines).toHaveLength(3);
  return lines;
}

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
    // The recipe creates the kit folder itself (a nested one, to prove it).
    const kit = join(work, 'kit', 'tarballs');
    project = join(work, 'my-nav');
    for (const line of localRecipe(kit, project)) {
      const ran = await run('sh', ['-ec', line], ROOT);
      if (line.startsWith('node ')) expect(ran.stdout).toContain('Next steps:');
    }
    expect(readdirSync(kit).sort()).toEqual([
      expect.stringMatching(/^robot-mcp-kit-brokers-.*\.tgz$/),
      expect.stringMatching(/^robot-mcp-kit-cli-.*\.tgz$/),
      expect.stringMatching(/^robot-mcp-kit-core-.*\.tgz$/),
      expect.stringMatching(/^robot-mcp-kit-receiver-.*\.tgz$/),
      expect.stringMatching(/^robot-mcp-kit-server-.*\.tgz$/),
    ]);
    await run(npm, ['install', '--prefer-offline', '--no-audit', '--no-fund'], project);
  }, 15 * MINUTE);

  afterAll(() => {
    if (work) rmSync(work, { recursive: true, force: true });
  });

  it(
    'builds as generated',
    async () => {
      // its own tests run once, after add tool and add trigger below (the generated suites among them)
      const built = await run(npm, ['run', 'build'], project);
      expect(built.code).toBe(0);
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
      const doctor = await run(npm, ['run', 'doctor'], project);
      expect(doctor.stdout).toContain('No problems');
    },
    2 * MINUTE,
  );

  it(
    'stays green after add tool and add trigger',
    async () => {
      await run(npm, ['run', 'kit', '--', 'add', 'tool', 'scan_room', '--long-running'], project);
      await run(npm, ['run', 'kit', '--', 'add', 'trigger', 'battery_below'], project);
      await run(npm, ['run', 'build'], project);
      const tested = await run(npm, ['test'], project);
      const output = `${tested.stdout}${tested.stderr}`;
      // the generated project's 7 tests, then those add tool and add trigger wrote beside them
      expect(output).toMatch(/Test Suites:\s+3 passed, 3 total/);
      const passed = Number(/Tests:\s+(\d+) passed, \1 total/.exec(output)?.[1] ?? 0);
      expect(passed).toBeGreaterThan(7);
      const { tools } = await listToolsOverStdio(project);
      expect(tools).toContain('scan_room');
    },
    10 * MINUTE,
  );
});
