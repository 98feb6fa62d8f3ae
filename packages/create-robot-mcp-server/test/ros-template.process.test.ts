/**
 * The ros template end to end, without an install: the generated project gets the workspace's
 * node_modules (the kit packages are linked there, built), then runs its own `npm run build` and
 * `npm test` — its tests drive the server against the rosbridge double with the real roslib
 * client. Needs `npm run build` first. (test/generator.integration.test.ts does the same for the
 * basic template with packed tarballs and a real install.)
 */
import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { generateProject } from '../src/project.generator.js';
import { REPO_ROOT } from './support/typecheck.js';

const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';

function run(args: string[], cwd: string): Promise<string> {
  const env = Object.fromEntries(
    Object.entries(process.env).filter(([key]) => !/^(npm_|MCP_|RVC_)/i.test(key)),
  );
  return new Promise((resolve, reject) => {
    execFile(
      npm,
      args,
      { cwd, env, timeout: 5 * 60_000, maxBuffer: 16 * 1024 * 1024 },
      (error, stdout, stderr) => {
        const output = `${String(stdout)}${String(stderr)}`;
        if (error) reject(new Error(`npm ${args.join(' ')} failed:\n${output}`));
        else resolve(output);
      },
    );
  });
}

describe('create-robot-mcp-server --template ros (process)', () => {
  let work: string;

  beforeAll(() => {
    const built = join(REPO_ROOT, 'packages/ros/dist/index.js');
    if (!existsSync(built)) throw new Error(`missing ${built}: run "npm run build" before this test`);
    work = mkdtempSync(join(tmpdir(), 'rmk-ros-template-'));
  });
  afterAll(() => rmSync(work, { recursive: true, force: true }));

  it(
    'generates a project that builds and passes its own tests against the rosbridge double',
    async () => {
      const directory = join(work, 'turtle');
      generateProject(
        {
          directory,
          name: 'turtle',
          description: 'A TurtleBot behind MCP',
          transport: 'stdio',
          template: 'ros',
          longRunningTool: 'navigate_to_pose',
          plainTool: 'get_battery',
          firstToolLongRunning: true,
          firstToolActuates: true,
          force: false,
        },
        '0.1.0',
      );
      symlinkSync(join(REPO_ROOT, 'node_modules'), join(directory, 'node_modules'), 'dir');
      await run(['run', 'build'], directory);
      expect(existsSync(join(directory, 'dist/main.js'))).toBe(true);
      expect(await run(['test'], directory)).toMatch(/Tests:\s+3 passed, 3 total/);
    },
    10 * 60_000,
  );
});
