import { existsSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { addTrigger } from '../../src/add-trigger/add-trigger.command.js';
import {
  triggerNames,
  triggerPluginText,
  triggerShape,
  triggerTestText,
} from '../../src/add-trigger/trigger.snippets.js';
import { generatedProject, read, snapshot } from '../support/project.fixture.js';

const MAIN = (options: string) =>
  "import { runServer } from '@robot-mcp-kit/server';\n" +
  "import { MyNavServer } from './my-nav.server.js';\n\n" +
  `await runServer(${options});\n`;

describe('addTrigger', () => {
  let root: string;
  let cleanup: () => void;

  beforeEach(() => {
    ({ root, cleanup } = generatedProject());
  });

  afterEach(() => cleanup());

  it('writes the plugin and its test and lists it in src/plugins.ts', () => {
    expect(addTrigger({ root, type: 'battery_below' })).toEqual({
      type: 'battery_below',
      variable: 'batteryBelowTrigger',
      registeredIn: 'src/plugins.ts',
      created: ['src/triggers/battery-below.trigger.ts', 'test/triggers/battery-below.trigger.test.ts'],
      modified: ['src/plugins.ts'],
    });
    addTrigger({ root, type: 'zone_reached' });
    const plugins = read(root, 'src/plugins.ts');
    expect(plugins).toContain("import { batteryBelowTrigger } from './triggers/battery-below.trigger.js';\n");
    expect(plugins).toContain("import { zoneReachedTrigger } from './triggers/zone-reached.trigger.js';\n");
    expect(plugins).toContain(
      'export const plugins: TriggerPlugin[] = [batteryBelowTrigger, zoneReachedTrigger];',
    );
    expect(read(root, 'src/triggers/battery-below.trigger.ts')).toContain("type: 'battery_below',");
    const test = read(root, 'test/triggers/battery-below.trigger.test.ts');
    expect(test).toContain("import { plugins } from '../../src/plugins.js';");
    expect(test).toContain(
      "import { batteryBelowTrigger } from '../../src/triggers/battery-below.trigger.js';",
    );
    expect(read(root, 'src/main.ts')).not.toContain('batteryBelow');
  });

  it('accepts a plugins list written with satisfies or as', () => {
    writeFileSync(join(root, 'src/plugins.ts'), 'export const plugins = [] as TriggerPlugin[];\n');
    addTrigger({ root, type: 'door_open' });
    expect(read(root, 'src/plugins.ts')).toContain(
      'export const plugins = [doorOpenTrigger] as TriggerPlugin[];',
    );
  });

  describe('in a project without src/plugins.ts, edits runServer(...) in src/main.ts', () => {
    beforeEach(() => rmSync(join(root, 'src', 'plugins.ts')));

    it.each([
      ['MyNavServer', 'runServer(MyNavServer, { plugins: [batteryBelowTrigger] })'],
      [
        'MyNavServer, { shutdownTimeoutMs: 5000 }',
        'runServer(MyNavServer, { shutdownTimeoutMs: 5000, plugins: [batteryBelowTrigger] })',
      ],
      [
        'MyNavServer, { plugins: [other] }',
        'runServer(MyNavServer, { plugins: [other, batteryBelowTrigger] })',
      ],
    ])('runServer(%s)', (options, expected) => {
      writeFileSync(join(root, 'src/main.ts'), MAIN(options));
      const result = addTrigger({ root, type: 'battery_below' });
      expect(result.registeredIn).toBe('src/main.ts');
      const main = read(root, 'src/main.ts');
      expect(main.replace(/,\s*}/g, ' }').replace(/\s+/g, ' ')).toContain(expected);
      expect(main).toContain("import { batteryBelowTrigger } from './triggers/battery-below.trigger.js';");
      expect(read(root, 'test/triggers/battery-below.trigger.test.ts')).not.toContain('plugins');
    });

    it.each([
      ['MyNavServer, options', 'the options of runServer(...) are not an object literal'],
      ['MyNavServer, { plugins: mine }', 'the plugins of runServer(...) are not an array literal'],
      ['MyNavServer, { plugins: [batteryBelowTrigger] }', 'already lists batteryBelowTrigger'],
    ])('refuses runServer(%s), changing nothing', (options, message) => {
      writeFileSync(join(root, 'src/main.ts'), MAIN(options));
      expect(() => addTrigger({ root, type: 'battery_below' })).toThrow(message);
      expect(read(root, 'src/main.ts')).toBe(MAIN(options));
      expect(existsSync(join(root, 'src/triggers/battery-below.trigger.ts'))).toBe(false);
    });

    it('refuses a main.ts without runServer', () => {
      writeFileSync(join(root, 'src/main.ts'), 'export {};\n');
      expect(() => addTrigger({ root, type: 'battery_below' })).toThrow(
        'src/main.ts: has no runServer(...) call',
      );
    });

    it('refuses a project with neither file', () => {
      rmSync(join(root, 'src', 'main.ts'));
      expect(() => addTrigger({ root, type: 'battery_below' })).toThrow(
        'has neither src/plugins.ts nor src/main.ts',
      );
    });
  });

  it('refuses, changing nothing: a built-in type, an existing plugin file, a plugins file without the array', () => {
    const files = ['src/plugins.ts', 'src/main.ts'];
    const before = snapshot(root, files);
    expect(() => addTrigger({ root, type: 'progress_above' })).toThrow('is a built-in trigger type');
    addTrigger({ root, type: 'battery_below' });
    const after = snapshot(root, files);
    expect(() => addTrigger({ root, type: 'battery_below' })).toThrow(
      'src/triggers/battery-below.trigger.ts: already exists; remove it or choose another trigger type',
    );
    expect(snapshot(root, files)).toEqual(after);
    writeFileSync(join(root, 'src/plugins.ts'), 'export const plugins = load();\n');
    expect(() => addTrigger({ root, type: 'door_open' })).toThrow(
      'has no "export const plugins = [...]" array',
    );
    expect(before['src/plugins.ts']).not.toEqual(after['src/plugins.ts']);
  });
});

describe('trigger snippets', () => {
  it('guess the progress field and the comparison from the type', () => {
    expect(triggerShape('battery_below')).toEqual({ field: 'battery', comparison: 'below' });
    expect(triggerShape('speed_above')).toEqual({ field: 'speed', comparison: 'above' });
    expect(triggerShape('zone_reached')).toEqual({ field: 'zone_reached', comparison: 'equals' });
  });

  it('compare as the name says', () => {
    expect(triggerPluginText(triggerNames('battery_below'))).toContain(
      'return current < trigger.value ? { battery: current } : undefined;',
    );
    expect(triggerPluginText(triggerNames('speed_above'))).toContain(
      'return current > trigger.value ? { speed: current } : undefined;',
    );
    expect(triggerPluginText(triggerNames('zone_reached'))).toContain('current === trigger.value');
    expect(triggerTestText(triggerNames('speed_above'), './p.js')).toContain('{ speed: 25 }');
  });
});
