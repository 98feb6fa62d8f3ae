import { afterEach, describe, expect, it } from '@jest/globals';
import { ConfigError } from '@robot-mcp-kit/core';
import { MemoryLogger } from '@robot-mcp-kit/core/testing';
import { bootstrap, CapabilityServer, Tool } from '@robot-mcp-kit/server';
import { parseServerArgs } from '@robot-mcp-kit/server/advanced';
import { compileGlob, parseToolPatterns } from '../../../src/rules/tool-pattern.rules.js';
import { ArmServer } from '../fixtures/arm.server.js';
import { type AppHarness, startApp, textOf } from '../fixtures/multi-client.js';

let h: AppHarness<ArmServer> | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

const KIT = ['cancel_task', 'get_events', 'get_task', 'list_tasks', 'wait_for_event'];
const ALL = ['blink', 'drive', 'erase_map', 'get_pose', 'move_arm', 'set_mode', 'watch_people', ...KIT];

async function toolNames(options: Parameters<typeof startApp<ArmServer>>[1] = {}): Promise<string[]> {
  h = startApp(ArmServer, options);
  const session = await h.session();
  const { tools } = await session.client.listTools();
  return tools.map((t) => t.name).sort();
}

describe('annotations', () => {
  it('marks reads read-only, cancel_task idempotent and actuating tools destructive unless overridden', async () => {
    h = startApp(ArmServer);
    const session = await h.session();
    const { tools } = await session.client.listTools();
    const byName = new Map(tools.map((t) => [t.name, t.annotations ?? {}]));
    for (const name of ['get_task', 'list_tasks', 'get_events', 'wait_for_event']) {
      expect(byName.get(name)).toMatchObject({ readOnlyHint: true, openWorldHint: false });
    }
    expect(byName.get('cancel_task')).toMatchObject({
      readOnlyHint: false,
      destructiveHint: false,
      idempotentHint: true,
    });
    expect(byName.get('move_arm')).toEqual({ readOnlyHint: false, destructiveHint: true });
    expect(byName.get('drive')).toEqual({ readOnlyHint: false, destructiveHint: true });
    expect(byName.get('blink')).toEqual({ readOnlyHint: false, destructiveHint: false });
    expect(byName.get('watch_people')).toEqual({});
    expect(byName.get('get_pose')).toEqual({ readOnlyHint: true });
  });

  it('warns about an actuating tool annotated read-only', () => {
    @CapabilityServer({ name: 'odd', version: '1' })
    class Odd {
      @Tool({ description: 'Wave', actuates: true, annotations: { readOnlyHint: true } })
      wave(): string {
        return 'waved';
      }
    }
    const logger = new MemoryLogger();
    bootstrap(Odd, { env: {}, logger });
    expect(logger.entries.find((e) => e.message.includes('readOnlyHint'))).toMatchObject({
      level: 'warn',
      meta: { tool: 'wave' },
    });
    expect(bootstrap(Odd, { env: {}, readOnly: true, logger }).registry.get('wave')).toBeUndefined();
  });
});

describe('read-only mode', () => {
  it('is off by default: every tool is offered', async () => {
    expect(await toolNames()).toEqual(ALL.sort());
  });

  it('RMK_READ_ONLY=1 hides actuating and destructive tools, keeps cancel_task and non-acting long-running tools', async () => {
    const names = await toolNames({ env: { RMK_READ_ONLY: '1' } });
    expect(names).toEqual(['get_pose', 'set_mode', 'watch_people', ...KIT].sort());
  });

  it('the readOnly option wins over the variable, both ways', async () => {
    expect(await toolNames({ readOnly: true, env: { RMK_READ_ONLY: '0' } })).not.toContain('drive');
    await h!.close();
    expect(await toolNames({ readOnly: false, env: { RMK_READ_ONLY: 'yes' } })).toContain('drive');
  });

  it('hidden tools cannot be called', async () => {
    h = startApp(ArmServer, { readOnly: true });
    const session = await h.session();
    await expect(session.client.callTool({ name: 'erase_map', arguments: {} })).rejects.toThrow(
      /Tool erase_map not found/,
    );
    expect(textOf(await session.call('get_pose'))).toBe('{"x":0}');
  });

  it('fails fast on a value that is not on/off, naming the variable', () => {
    expect(() => bootstrap(ArmServer, { env: { RMK_READ_ONLY: 'maybe' } })).toThrow(ConfigError);
    expect(() => bootstrap(ArmServer, { env: { RMK_READ_ONLY: 'maybe' } })).toThrow(/RMK_READ_ONLY: "maybe"/);
    expect(() => bootstrap(ArmServer, { env: {}, readOnly: 'yes' as unknown as boolean })).toThrow(
      /readOnly/,
    );
  });
});

describe('allow list', () => {
  it('RMK_ALLOW_TOOLS limits the decorated tools; kit tools stay', async () => {
    const names = await toolNames({ env: { RMK_ALLOW_TOOLS: 'get_*, drive' } });
    expect(names).toEqual(['drive', 'get_pose', ...KIT].sort());
  });

  it('"!" patterns exclude any tool, kit tools included; only excludes = everything else', async () => {
    const names = await toolNames({ env: { RMK_ALLOW_TOOLS: '!erase_*,!wait_for_event,!get_events' } });
    expect(names).toEqual(
      ALL.filter((n) => !['erase_map', 'wait_for_event', 'get_events'].includes(n)).sort(),
    );
  });

  it('? matches one character, and combines with read-only mode', async () => {
    const names = await toolNames({ allowTools: ['dri?e', 'move_arm', 'get_pos?'], readOnly: true });
    expect(names).toEqual(['get_pose', ...KIT].sort());
  });

  it('the allowTools option wins over the variable', async () => {
    const names = await toolNames({ allowTools: 'blink', env: { RMK_ALLOW_TOOLS: 'drive' } });
    expect(names).toEqual(['blink', ...KIT].sort());
  });

  it('fails fast on a bad pattern or one that matches no tool, naming the variable', () => {
    expect(() => bootstrap(ArmServer, { env: { RMK_ALLOW_TOOLS: 'drive,,blink' } })).toThrow(
      /RMK_ALLOW_TOOLS: pattern 2 \(""\) is not valid/,
    );
    expect(() => bootstrap(ArmServer, { env: { RMK_ALLOW_TOOLS: 'drive;rm' } })).toThrow(/RMK_ALLOW_TOOLS/);
    expect(() => bootstrap(ArmServer, { env: { RMK_ALLOW_TOOLS: 'navigate-to' } })).toThrow(
      /RMK_ALLOW_TOOLS: pattern "navigate-to" matches no tool; the tools are .*drive/,
    );
    expect(() => bootstrap(ArmServer, { env: {}, allowTools: ['nope*'] })).toThrow(/^allowTools: /);
    expect(() => bootstrap(ArmServer, { env: {}, allowTools: 3 as unknown as string })).toThrow(/allowTools/);
  });

  it('an empty variable means no limit', async () => {
    expect(await toolNames({ env: { RMK_ALLOW_TOOLS: '  ' } })).toEqual(ALL.sort());
  });
});

describe('patterns and flags', () => {
  it('compiles globs anchored, with regex characters escaped', () => {
    expect(compileGlob('get_*').test('get_pose')).toBe(true);
    expect(compileGlob('get_*').test('xget_pose')).toBe(false);
    expect(compileGlob('a.b').test('axb')).toBe(false);
    expect(compileGlob('a?c').test('abc')).toBe(true);
    expect(parseToolPatterns('X', ['!a*']).map((p) => [p.source, p.exclude])).toEqual([['!a*', true]]);
  });

  it('parses --read-only and --allow-tools (separate or inline, repeatable) and leaves the rest', () => {
    expect(
      parseServerArgs(['--read-only', '--allow-tools', 'get_*,drive', '--allow-tools=blink', 'x']),
    ).toEqual({
      readOnly: true,
      allowTools: ['get_*', 'drive', 'blink'],
      rest: ['x'],
    });
    expect(parseServerArgs([])).toEqual({ rest: [] });
    expect(() => parseServerArgs(['--allow-tools'])).toThrow(/--allow-tools: needs a comma-separated list/);
    expect(() => parseServerArgs(['--allow-tools', '--read-only'])).toThrow(/--allow-tools/);
    expect(() => parseServerArgs(['--allow-tools=a,,b'])).toThrow(/--allow-tools: pattern 2/);
  });

  it('keeps other flags in rest as written and reads no flag after --', () => {
    expect(parseServerArgs(['--port', '3000', '-v', '--read-only', '--', '--allow-tools', 'x'])).toEqual({
      readOnly: true,
      rest: ['--port', '3000', '-v', '--', '--allow-tools', 'x'],
    });
    expect(() => parseServerArgs(['--read-only=yes'])).toThrow(/--read-only: takes no value/);
  });
});
