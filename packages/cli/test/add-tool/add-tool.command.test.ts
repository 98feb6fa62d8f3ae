import { existsSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { addTool, existingToolNames } from '../../src/add-tool/add-tool.command.js';
import { addTrigger } from '../../src/add-trigger/add-trigger.command.js';
import { CliError } from '../../src/cli.error.js';
import { locateServerClass } from '../../src/project/project.locator.js';
import { createEditProject } from '../../src/project/ts-project.js';
import { generatedProject, read, snapshot, typecheckProject } from '../support/project.fixture.js';

const SERVER = 'src/my-nav.server.ts';

describe('addTool on a generated project', () => {
  let root: string;
  let cleanup: () => void;

  beforeEach(() => {
    ({ root, cleanup } = generatedProject({ inWorkspace: true }));
  });

  afterEach(() => cleanup());

  it('adds a long-running tool and a plain tool that typecheck (with triggers), with their tests', () => {
    const lr = addTool({ root, name: 'scan_room', longRunning: true });
    expect(lr).toEqual({
      tool: 'scan_room',
      actuates: true,
      serverFile: SERVER,
      className: 'MyNavServer',
      created: ['test/scan-room.test.ts'],
      modified: [SERVER],
    });
    const plain = addTool({ root, name: 'get_battery', longRunning: false });
    expect(plain.created).toEqual(['test/get-battery.test.ts']);
    expect(plain.actuates).toBe(false);
    const grasp = addTool({ root, name: 'grasp', longRunning: false, actuates: true });
    expect(grasp.actuates).toBe(true);

    const server = read(root, SERVER);
    expect(server).toMatch(
      /export class ScanRoomArgs \{\n {2}@JSONSchema\(.*\)\n {2}@IsInt\(\)\n {2}@Min\(1\)\n {2}@Max\(1000\)\n {2}steps!: number;\n\n/,
    );
    expect(server).toMatch(/\n {2}@LongRunningTool\(\{\n {4}description:\n {6}'scan_room: runs/);
    expect(server).toContain(
      '  async scanRoom(args: ScanRoomArgs, ctx: TaskContext): Promise<{ steps_done: number }> {\n',
    );
    expect(server).toContain(
      '  getBattery(args: GetBatteryArgs, ctx: ToolCallContext): { tool: string; note: string | null } {\n',
    );
    // the DTOs go before the server class, the methods at its end
    expect(server.indexOf('class GetBatteryArgs')).toBeLessThan(server.indexOf('export class MyNavServer'));
    expect(server.trimEnd().endsWith('}\n}')).toBe(true);
    // class-validator and @robot-mcp-kit/server: an author's server imports nothing from core
    expect(server.split('\n').filter((line) => line.startsWith('import '))).toHaveLength(2);
    expect(server).not.toContain('@robot-mcp-kit/core');

    expect(read(root, 'test/scan-room.test.ts')).toContain("from './support/harness.js'");
    expect(read(root, 'test/scan-room.test.ts')).toContain(
      "triggers: [{ type: 'progress_above', percent: 50 }]",
    );
    expect(read(root, 'test/get-battery.test.ts')).toContain(
      "callTool(server.client, 'get_battery', { note: 'hello' })",
    );

    // a tool that acts is marked so, hidden by --read-only; one that reads is annotated read-only
    expect(server).toMatch(/@Tool\(\{[^@]*actuates: true,[^@]*\}\)\s*grasp\(/);
    expect(server).toMatch(/@LongRunningTool\(\{[^@]*actuates: true,[^@]*\}\)\s*async scanRoom\(/);
    expect(server).toMatch(/@Tool\(\{[^@]*annotations: \{ readOnlyHint: true \},[^@]*\}\)\s*getBattery\(/);
    expect(read(root, 'test/grasp.test.ts')).toContain('destructiveHint: true');
    expect(read(root, 'test/get-battery.test.ts')).toContain(
      '.annotations).toMatchObject({ readOnlyHint: true })',
    );

    // one (slow) typecheck for every kind of generated code: tools, their tests, trigger plugins
    addTrigger({ root, type: 'battery_below' });
    addTrigger({ root, type: 'zone_reached' });
    expect(typecheckProject(root)).toEqual([]);
  }, 60000);

  it('adds the imports a server file lacks', () => {
    const path = join(root, SERVER);
    writeFileSync(
      path,
      "import { CapabilityServer } from '@robot-mcp-kit/server';\n\n" +
        "@CapabilityServer({ name: 'my-nav', version: '1' })\nexport class MyNavServer {}\n",
    );
    addTool({ root, name: 'scan_room', longRunning: true });
    const server = read(root, SERVER);
    expect(server).toContain(
      "import { CapabilityServer, JSONSchema, LongRunningTool, type TaskContext } from '@robot-mcp-kit/server';",
    );
    expect(server).toContain("import { IsInt, IsOptional, Max, Min } from 'class-validator';");
    expect(server).not.toContain('@robot-mcp-kit/core');
  });

  it('recreates the test harness when the project has none', () => {
    rmSync(join(root, 'test', 'support'), { recursive: true });
    const result = addTool({ root, name: 'get_battery', longRunning: false });
    expect(result.created).toEqual(['test/support/harness.ts', 'test/get-battery.test.ts']);
    const harness = read(root, 'test/support/harness.ts');
    expect(harness).toContain("import { MyNavServer } from '../../src/my-nav.server.js';");
    expect(harness).toContain("import { plugins } from '../../src/plugins.js';");
    rmSync(join(root, 'test', 'support'), { recursive: true });
    rmSync(join(root, 'src', 'plugins.ts'));
    addTool({ root, name: 'get_pose', longRunning: false });
    expect(read(root, 'test/support/harness.ts')).not.toContain('plugins');
  });

  describe('refuses, changing nothing', () => {
    const files = [SERVER, 'test/my-nav.server.test.ts'];

    it.each([
      ['patrol', 'already has this tool'],
      ['get_task', 'reserved by the kit'],
      ['Scan', 'not a valid tool name'],
    ])('%s (%s)', (name, message) => {
      const before = snapshot(root, files);
      expect(() => addTool({ root, name, longRunning: true })).toThrow(message);
      expect(snapshot(root, files)).toEqual(before);
    });

    it('a tool named by its decorator, a member or a DTO of the same name, an existing test', () => {
      const path = join(root, SERVER);
      const original = read(root, SERVER);
      writeFileSync(path, original.replace('@Tool({\n', "@Tool({\n    name: 'report',\n"));
      expect(() => addTool({ root, name: 'report', longRunning: false })).toThrow('already has this tool');
      expect(() => addTool({ root, name: 'step_reached', longRunning: false })).toThrow(
        'already has a member "stepReached"',
      );
      writeFileSync(path, `${original}\nexport class MoveArgs {}\n`);
      expect(() => addTool({ root, name: 'move', longRunning: false })).toThrow(
        'already declares "MoveArgs"',
      );
      writeFileSync(path, `import { type LiftArgs } from './lift.js';\n${original}`);
      expect(() => addTool({ root, name: 'lift', longRunning: false })).toThrow(
        'already declares "LiftArgs"',
      );
      writeFileSync(join(root, 'test', 'dock.test.ts'), '');
      expect(() => addTool({ root, name: 'dock', longRunning: false })).toThrow(
        'test/dock.test.ts: already exists; remove it or choose another tool name',
      );
      expect(existsSync(join(root, 'test', 'move.test.ts'))).toBe(false);
    });

    it('an anonymous server class', () => {
      writeFileSync(
        join(root, SERVER),
        "import { CapabilityServer } from '@robot-mcp-kit/server';\n" +
          "export default @CapabilityServer({ name: 'x', version: '1' }) class {}\n",
      );
      expect(() => addTool({ root, name: 'go', longRunning: false })).toThrow(CliError);
    });
  });

  it('reads the tool names of a class as the server derives them', () => {
    const project = createEditProject();
    const { serverClass } = locateServerClass(project, root);
    expect(existingToolNames(serverClass)).toEqual(['patrol', 'get_status']);
  });
});
