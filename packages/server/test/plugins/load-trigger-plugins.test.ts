import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { IsString } from 'class-validator';
import { ConfigError, type JsonObject, type TaskContext } from '@robot-mcp-kit/core';
import { CapabilityServer, LongRunningTool } from '@robot-mcp-kit/server';
import { loadTriggerPlugins } from '@robot-mcp-kit/server/advanced';
import { connect, type Harness, textOf } from '../fixtures/harness.js';

const BATTERY = `
export default {
  type: 'battery_below',
  description: 'fires when the progress battery < percent',
  validate: (t) => (typeof t.percent === 'number' ? [] : ['percent: expected a number']),
  evaluate: (t, progress) => (progress.battery < t.percent ? { battery: progress.battery } : undefined),
};
`;
const LIST = `
const make = (type) => ({ type, evaluate: () => undefined });
export const plugins = [make('door_open'), make('door_closed')];
`;

class GoArgs {
  @IsString()
  goal!: string;
}

@CapabilityServer({ name: 'plugged', version: '1.0.0' })
class PluggedServer {
  @LongRunningTool({ description: 'Goes somewhere' })
  async go(args: GoArgs, ctx: TaskContext): Promise<JsonObject> {
    await ctx.sleep(10);
    return { at: args.goal };
  }
}

describe('loadTriggerPlugins', () => {
  let dir: string;
  let h: Harness | undefined;
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'rmk-plugins-'));
    writeFileSync(join(dir, 'battery.mjs'), BATTERY);
    writeFileSync(join(dir, 'doors.mjs'), LIST);
    writeFileSync(join(dir, 'empty.mjs'), 'export const nothing = 1;\n');
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  afterEach(async () => {
    await h?.close();
    h = undefined;
  });

  it('loads a default export and a `plugins` array, in order, and a server uses them', async () => {
    const plugins = await loadTriggerPlugins([join(dir, 'battery.mjs'), join(dir, 'doors.mjs')]);
    expect(plugins.map((p) => p.type)).toEqual(['battery_below', 'door_open', 'door_closed']);

    h = await connect(PluggedServer, { plugins });
    const refused = await h.call('go', { goal: 'dock', triggers: [{ type: 'battery_below' }] });
    expect(refused.isError).toBe(true);
    expect(textOf(refused)).toContain('percent: expected a number');
    const started = await h.json<{ triggers: unknown[]; unrecognised_triggers?: unknown }>('go', {
      goal: 'dock',
      triggers: [{ type: 'battery_below', percent: 20 }],
    });
    expect(started.triggers).toEqual([{ type: 'battery_below', percent: 20 }]);
    expect(started.unrecognised_triggers).toBeUndefined();
  });

  it('names the module that cannot be loaded or exports no plugin', async () => {
    const missing = join(dir, 'missing.mjs');
    await expect(loadTriggerPlugins([missing])).rejects.toThrow(ConfigError);
    await expect(loadTriggerPlugins([missing])).rejects.toThrow(
      new RegExp(
        `plugins: cannot load trigger plugin module "${missing.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}"`,
      ),
    );
    await expect(loadTriggerPlugins([join(dir, 'empty.mjs')])).rejects.toThrow(
      /does not export a trigger plugin \(\{ type, evaluate, \.\.\. \}\)/,
    );
  });
});
