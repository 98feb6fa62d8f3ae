import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { GeneratorError } from '../src/generator.error.js';
import { type ProjectOptions } from '../src/options.resolver.js';
import {
  generateProject,
  renderProject,
  shellQuote,
  templateVars,
  tsString,
} from '../src/project.generator.js';
import { listFiles, typecheckProject, workspaceTempDir } from './support/typecheck.js';

const options = (overrides: Partial<ProjectOptions> = {}): ProjectOptions => ({
  directory: '/srv/robots/my-nav',
  name: 'my-nav',
  description: 'Drives the base',
  transport: 'stdio',
  longRunningTool: 'patrol',
  plainTool: 'get_status',
  firstToolLongRunning: true,
  firstToolActuates: true,
  force: false,
  ...overrides,
});

const fileOf = (files: { path: string; content: string }[], path: string): string => {
  const file = files.find((f) => f.path === path);
  if (!file) throw new Error(`${path} was not rendered; got ${files.map((f) => f.path).join(', ')}`);
  return file.content;
};

describe('renderProject with --template ros', () => {
  const rosFiles = renderProject(
    options({ template: 'ros', longRunningTool: 'navigate_to_pose', plainTool: 'get_battery' }),
    '0.1.0',
  );

  it('renders the same files as the basic template, the ros ones in place of the server, main and tests', () => {
    expect(rosFiles.map((f) => f.path)).toEqual(renderProject(options(), '0.1.0').map((f) => f.path));
    for (const file of rosFiles) expect(file.content).not.toMatch(/\{\{\w+\}\}/);
    const server = fileOf(rosFiles, 'src/my-nav.server.ts');
    expect(server).toMatch(
      /@RosActionTool\(\{[\s\S]*async navigateToPose\(args: NavigateToPoseArgs, ctx: TaskContext\)/,
    );
    expect(server).toContain('destructiveHint: false');
    expect(fileOf(rosFiles, 'src/main.ts')).toContain('ROSBRIDGE_URL');
    expect(fileOf(rosFiles, 'test/support/harness.ts')).toContain('startRosbridgeDouble');
    expect(fileOf(rosFiles, 'src/plugins.ts')).toContain('batteryBelowTrigger');
  });

  it('depends on @robot-mcp-kit/ros; the basic template does not', () => {
    const pkg = JSON.parse(fileOf(rosFiles, 'package.json')) as { dependencies: Record<string, string> };
    expect(pkg.dependencies['@robot-mcp-kit/ros']).toBe('^0.1.0');
    const basic = JSON.parse(fileOf(renderProject(options(), '0.1.0'), 'package.json')) as typeof pkg;
    expect(basic.dependencies['@robot-mcp-kit/ros']).toBeUndefined();
  });

  it('with --kit, needs the ros tarball and names the command that packs it', () => {
    const kit = workspaceTempDir('kit-');
    try {
      for (const name of ['core', 'server', 'cli'])
        writeFileSync(join(kit, `robot-mcp-kit-${name}-0.1.0.tgz`), '');
      const rosOptions = options({ template: 'ros', kit });
      expect(() => renderProject(rosOptions, '0.1.0')).toThrow(
        /robot-mcp-kit-ros-0\.1\.0\.tgz does not exist.*--workspace packages\/ros/,
      );
      expect(() => renderProject(options({ kit }), '0.1.0')).not.toThrow();
      writeFileSync(join(kit, 'robot-mcp-kit-ros-0.1.0.tgz'), '');
      const pkg = JSON.parse(fileOf(renderProject(rosOptions, '0.1.0'), 'package.json')) as {
        dependencies: Record<string, string>;
      };
      expect(pkg.dependencies['@robot-mcp-kit/ros']).toBe(`file:${join(kit, 'robot-mcp-kit-ros-0.1.0.tgz')}`);
    } finally {
      rmSync(kit, { recursive: true, force: true });
    }
  });
});

describe('renderProject', () => {
  const files = renderProject(options(), '0.1.0');

  it('renders every file of the project', () => {
    expect(files.map((f) => f.path)).toEqual([
      '.env.example',
      '.gitignore',
      'README.md',
      'deploy/my-nav.service',
      'jest.config.js',
      'package.json',
      'src/main.ts',
      'src/my-nav.server.ts',
      'src/plugins.ts',
      'test/my-nav.server.test.ts',
      'test/support/harness.ts',
      'tsconfig.build.json',
      'tsconfig.json',
    ]);
    for (const file of files) expect(file.content).not.toMatch(/\{\{\w+\}\}/);
  });

  it('writes the server class with one long-running tool, one plain tool and a trigger', () => {
    const server = fileOf(files, 'src/my-nav.server.ts');
    expect(server).toContain('export class MyNavServer {');
    expect(server).toContain("name: 'my-nav',");
    expect(server).toMatch(/@LongRunningTool\(\{[\s\S]*async patrol\(args: PatrolArgs, ctx: TaskContext\)/);
    expect(server).toMatch(/@Tool\(\{[\s\S]*getStatus\(args: GetStatusArgs, ctx: ToolCallContext\)/);
    expect(server).toContain("@Trigger('step_reached'");
    expect(fileOf(files, 'src/main.ts')).toContain('await runServer(MyNavServer, { plugins });');
    expect(fileOf(files, 'test/support/harness.ts')).toContain(
      "import { MyNavServer } from '../../src/my-nav.server.js';",
    );
  });

  it('marks the tools that act on the world and tests them under --read-only', () => {
    const server = fileOf(files, 'src/my-nav.server.ts');
    expect(server).toMatch(/@LongRunningTool\(\{[^@]*actuates: true,[^@]*\}\)\s*async patrol\(/);
    expect(server).toMatch(/@Tool\(\{[^@]*annotations: \{ readOnlyHint: true \},[^@]*\}\)\s*getStatus\(/);
    const test = fileOf(files, 'test/my-nav.server.test.ts');
    expect(test).toContain('startServer({ readOnly: true })');
    expect(test).toContain("for (const acting of ['patrol'] as string[])");
    expect(test).toContain("for (const reading of ['get_status'] as string[])");

    const arm = renderProject(
      options({ longRunningTool: 'patrol', plainTool: 'grasp', firstToolLongRunning: false }),
      '0.1.0',
    );
    const armServer = fileOf(arm, 'src/my-nav.server.ts');
    expect(armServer).toMatch(/@Tool\(\{[^@]*actuates: true,[^@]*\}\)\s*grasp\(/);
    expect(fileOf(arm, 'test/my-nav.server.test.ts')).toContain("for (const acting of ['patrol', 'grasp']");
    const watcher = renderProject(options({ firstToolActuates: false }), '0.1.0');
    expect(fileOf(watcher, 'src/my-nav.server.ts')).not.toContain('actuates: true');
  });

  it('runs the CLI from node_modules only: an npm script, never a bare npx name', () => {
    const pkg = JSON.parse(fileOf(files, 'package.json')) as { scripts: Record<string, string> };
    expect(pkg.scripts.kit).toBe('robot-mcp-kit');
    for (const file of files) expect(file.content).not.toMatch(/npx robot-mcp-kit/);
    expect(fileOf(files, 'README.md')).toContain('npm run kit -- add tool grasp --actuates');
  });

  it('depends on the kit at the generator version, with the test tooling', () => {
    const pkg = JSON.parse(fileOf(files, 'package.json')) as Record<string, Record<string, string>>;
    expect(pkg.name).toBe('my-nav');
    expect(pkg.type).toBe('module');
    expect(pkg.dependencies).toMatchObject({
      '@robot-mcp-kit/core': '^0.1.0',
      '@robot-mcp-kit/server': '^0.1.0',
    });
    expect(pkg.devDependencies).toMatchObject({ '@robot-mcp-kit/cli': '^0.1.0', typescript: '6.0.3' });
    expect(Object.keys(pkg.devDependencies ?? {})).toEqual(
      expect.arrayContaining(['jest', 'ts-jest', '@types/jest', '@types/node']),
    );
    expect(pkg.scripts).toMatchObject({
      build: 'tsc -p tsconfig.build.json',
      start: 'node dist/main.js',
      test: 'tsc -p tsconfig.json --noEmit && node --experimental-vm-modules node_modules/jest/bin/jest.js',
    });
    expect(pkg.overrides).toBeUndefined();
  });

  it('writes a hardened systemd unit bound to loopback', () => {
    const unit = fileOf(files, 'deploy/my-nav.service');
    for (const line of [
      'NoNewPrivileges=yes',
      'Environment=NODE_OPTIONS=--max-old-space-size=512',
      'PrivateTmp=yes',
      'ProtectSystem=strict',
      'ProtectHome=yes',
      'User=my-nav',
      'Environment=MCP_HOST=127.0.0.1',
      'Environment=MCP_TRANSPORT=streamable-http',
      'Restart=on-failure',
      'StandardOutput=journal',
      'StandardError=journal',
      'EnvironmentFile=-/etc/my-nav/env',
      'ExecStart=/usr/bin/env node /opt/my-nav/dist/main.js',
    ]) {
      expect(unit).toContain(`\n${line}\n`);
    }
  });

  it('comments every setting in .env.example and ignores .env in git', () => {
    const env = fileOf(files, '.env.example');
    for (const variable of [
      'RVC_CALLBACK_URL',
      'RVC_EVENT_SECRET',
      'MCP_TRANSPORT',
      'MCP_HOST',
      'MCP_PORT',
      'LOG_LEVEL',
      'RMK_AUTH_TOKEN',
      'RMK_ALLOW_UNAUTHENTICATED',
      'RMK_ALLOWED_HOSTS',
      'RMK_ALLOWED_ORIGINS',
      'RMK_MAX_SESSIONS',
      'RMK_SESSION_IDLE_S',
      'RMK_READ_ONLY',
      'RMK_ALLOW_TOOLS',
      'RMK_KEEP_TASKS',
      'RMK_EVENT_FEED',
      'RMK_EVENT_BUFFER',
      'RMK_RESOURCE_UPDATE_MS',
    ]) {
      expect(env).toMatch(new RegExp(`^# ${variable}=`, 'm'));
    }
    expect(env).not.toMatch(/^[A-Z_]+=/m);
    expect(fileOf(files, '.gitignore').split('\n')).toEqual(
      expect.arrayContaining(['node_modules/', 'dist/', '.env']),
    );
  });

  it('gives client snippets with the absolute path of dist/main.js', () => {
    const readme = fileOf(files, 'README.md');
    expect(readme).toContain(
      'claude mcp add my-nav -e MCP_TRANSPORT=stdio -- node /srv/robots/my-nav/dist/main.js',
    );
    expect(readme).toContain('"args": ["/srv/robots/my-nav/dist/main.js"]');
    expect(readme).toContain('npx @modelcontextprotocol/inspector node dist/main.js');
  });

  it('puts the chosen transport in main.ts and the unit', () => {
    const http = renderProject(options({ transport: 'sse' }), '0.1.0');
    expect(fileOf(http, 'src/main.ts')).toContain("process.env.MCP_TRANSPORT ??= 'sse';");
    expect(fileOf(http, 'deploy/my-nav.service')).toContain('Environment=MCP_TRANSPORT=sse');
  });

  it('escapes the description where it lands in code and in the unit', () => {
    const tricky = renderProject(options({ description: "Ada's 100% \\ robot" }), '0.1.0');
    expect(fileOf(tricky, 'src/my-nav.server.ts')).toContain("description: 'Ada\\'s 100% \\\\ robot',");
    expect(fileOf(tricky, 'deploy/my-nav.service')).toContain("Description=Ada's 100%% \\ robot");
  });

  it('points at the packed tarballs with --kit and makes npm use them everywhere', () => {
    const kit = workspaceTempDir('kit-');
    try {
      for (const name of ['core', 'server', 'cli'])
        writeFileSync(join(kit, `robot-mcp-kit-${name}-0.1.0.tgz`), '');
      const pkg = JSON.parse(fileOf(renderProject(options({ kit }), '0.1.0'), 'package.json')) as Record<
        string,
        Record<string, string>
      >;
      expect(pkg.dependencies?.['@robot-mcp-kit/core']).toBe(
        `file:${join(kit, 'robot-mcp-kit-core-0.1.0.tgz')}`,
      );
      expect(pkg.dependencies?.['@robot-mcp-kit/server']).toBe(
        `file:${join(kit, 'robot-mcp-kit-server-0.1.0.tgz')}`,
      );
      expect(pkg.devDependencies?.['@robot-mcp-kit/cli']).toBe(
        `file:${join(kit, 'robot-mcp-kit-cli-0.1.0.tgz')}`,
      );
      expect(pkg.overrides).toEqual({
        '@robot-mcp-kit/core': '$@robot-mcp-kit/core',
        '@robot-mcp-kit/server': '$@robot-mcp-kit/server',
      });
    } finally {
      rmSync(kit, { recursive: true, force: true });
    }
  });

  it('refuses --kit when a tarball is missing, with the command that makes it', () => {
    expect(() => renderProject(options({ kit: '/nowhere' }), '0.1.0')).toThrow(GeneratorError);
    expect(() => renderProject(options({ kit: '/nowhere' }), '0.1.0')).toThrow(
      /robot-mcp-kit-core-0\.1\.0\.tgz does not exist; pack the kit first, from the kit's repository: npm run build && mkdir -p \/nowhere && npm pack --pack-destination \/nowhere --workspace packages\/core .*--workspace packages\/receiver/,
    );
  });
});

describe('helpers', () => {
  it('quotes strings for TypeScript and the shell', () => {
    expect(tsString("it's \\")).toBe("'it\\'s \\\\'");
    expect(shellQuote('/opt/a/dist/main.js')).toBe('/opt/a/dist/main.js');
    expect(shellQuote("/home/o'neil/my robots/main.js")).toBe("'/home/o'\\''neil/my robots/main.js'");
  });

  it('names the DTOs and methods after the tools', () => {
    const vars = templateVars(options({ longRunningTool: 'scan_room', plainTool: 'get_pose' }), '0.1.0');
    expect(vars).toMatchObject({
      lrMethod: 'scanRoom',
      lrDto: 'ScanRoomArgs',
      plainMethod: 'getPose',
      plainDto: 'GetPoseArgs',
      className: 'MyNavServer',
    });
  });
});

describe('generateProject', () => {
  let dir: string;

  beforeEach(() => {
    dir = workspaceTempDir('gen-');
  });

  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('writes a project that typechecks against the kit', () => {
    const target = join(dir, 'arm-ctl');
    const project = generateProject(
      options({ directory: target, name: 'arm-ctl', longRunningTool: 'move_arm', plainTool: 'get_joints' }),
      '0.1.0',
    );
    expect(listFiles(target)).toEqual([...project.files].sort());
    expect(typecheckProject(target)).toEqual([]);
  }, 60000);

  it('writes a ros project (--template ros) that typechecks against the kit and @robot-mcp-kit/ros', () => {
    const target = join(dir, 'turtle');
    generateProject(
      options({
        directory: target,
        name: 'turtle',
        template: 'ros',
        longRunningTool: 'navigate_to_pose',
        plainTool: 'get_battery',
      }),
      '0.1.0',
    );
    expect(typecheckProject(target)).toEqual([]);
  }, 60000);

  it('refuses a non-empty directory unless forced, and ignores .git', () => {
    mkdirSync(join(dir, '.git'));
    generateProject(options({ directory: dir }), '0.1.0');
    writeFileSync(join(dir, 'src', 'main.ts'), '// mine');
    expect(() => generateProject(options({ directory: dir }), '0.1.0')).toThrow(
      /is not empty \(.*\); choose a new directory, or pass --force/,
    );
    expect(readFileSync(join(dir, 'src', 'main.ts'), 'utf8')).toBe('// mine');
    generateProject(options({ directory: dir, force: true }), '0.1.0');
    expect(readFileSync(join(dir, 'src', 'main.ts'), 'utf8')).toContain('runServer');
  });

  it('refuses a target that is a file', () => {
    const file = join(dir, 'file');
    writeFileSync(file, 'x');
    expect(() => generateProject(options({ directory: file }), '0.1.0')).toThrow(
      'is a file, not a directory',
    );
  });
});
