import { afterEach, describe, expect, it } from '@jest/globals';
import {
  type BuiltinFeatureOptions,
  type RegisteredTool,
  RESERVED_TOOL_NAMES,
  type Feature,
  type FeatureContext,
  builtinFeatures,
  eventFeedOf,
} from '@robot-mcp-kit/server/advanced';
import { ArmServer } from '../features/fixtures/arm.server.js';
import { type AppHarness, startApp, until } from '../features/fixtures/multi-client.js';

const harnesses: AppHarness<ArmServer>[] = [];
afterEach(async () => {
  await Promise.all(harnesses.splice(0).map((h) => h.close()));
});

function open(options: Parameters<typeof startApp<ArmServer>>[1] = {}): AppHarness<ArmServer> {
  const h = startApp(ArmServer, options);
  harnesses.push(h);
  return h;
}

/** A feature that records what the bootstrapper and the app did with it. */
function recordingFeature(log: string[], hide: string): Feature {
  return {
    name: 'recording',
    needs: ['definition'],
    setup(ctx: Pick<FeatureContext, 'definition'>) {
      log.push(`setup ${ctx.definition.server.name}`);
      return {
        filterTools: (tools) => tools.filter((tool) => tool.name !== hide),
        extension: {
          name: 'recording',
          installSession: () => void log.push('session open'),
          sessionClosed: () => void log.push('session closed'),
          close: () => void log.push('closed'),
        },
      };
    },
  };
}

describe('features have a lifecycle', () => {
  it('each app gets its own feature state: two apps in one process share no event feed', async () => {
    const a = open();
    const b = open();
    const feedA = eventFeedOf(a.app)!;
    const feedB = eventFeedOf(b.app)!;
    expect(feedA).toBeDefined();
    expect(feedA).not.toBe(feedB);
    const id = await (await a.session()).start('drive');
    await until(() => a.server.controls.has(id));
    await a.server.control(id).ctx.progress({ percent: 10 });
    await until(() => feedA.newest >= 1);
    expect(feedB.newest).toBe(0);
    await a.close(); // cancels A's task: its feed records that, then closes
    harnesses.splice(harnesses.indexOf(a), 1);
    const closedAt = feedA.newest;
    // B's feed still works after A closed its features.
    const other = await (await b.session()).start('drive');
    await until(() => b.server.controls.has(other));
    await b.server.control(other).ctx.progress({ percent: 20 });
    await until(() => feedB.newest >= 1);
    expect(feedA.newest).toBe(closedAt);
  });

  it('a feature added to the built-ins is set up once per app, filters tools and gets session hooks', async () => {
    const log: string[] = [];
    const h = open({ features: [...builtinFeatures(), recordingFeature(log, 'erase_map')] });
    expect(log).toEqual(['setup arm']);
    const session = await h.session();
    const names = (await session.client.listTools()).tools.map((t) => t.name);
    expect(names).toContain('get_events');
    expect(names).not.toContain('erase_map');
    expect(log).toEqual(['setup arm', 'session open']);
    expect(h.app.extension('recording')?.name).toBe('recording');
    await h.close();
    harnesses.splice(harnesses.indexOf(h), 1);
    expect(log).toContain('closed');
  });

  it('a custom features list replaces the built-ins (and their options)', async () => {
    const log: string[] = [];
    const h = open({ eventFeed: true, features: [recordingFeature(log, 'none')] });
    const names = (await (await h.session()).client.listTools()).tools.map((t) => t.name);
    expect(names).not.toContain('get_events');
    expect(names).toContain('get_task');
    expect(eventFeedOf(h.app)).toBeUndefined();
  });

  it('builtinFeatures(options) configures each feature from typed options, checked at setup', () => {
    const names = builtinFeatures({ readOnly: true }).map((f) => f.name);
    expect(names).toEqual([
      'event-feed',
      'task-resources',
      'session-cleanup',
      'tool-policy',
      'estop',
      'confirm',
      'native-tasks',
    ]);
    expect(() => open({ features: builtinFeatures({ eventBuffer: 0 }) })).toThrow(
      /^eventBuffer: 0 is not valid/,
    );
    const readOnly = open({ features: builtinFeatures({ readOnly: true }) });
    expect(readOnly.app.registry.get('drive')).toBeUndefined();
    expect(readOnly.app.registry.get('get_task')).toBeDefined();
  });

  it('BuiltinFeatureOptions is derived from the list: every feature option, typed, nothing else', () => {
    const options: BuiltinFeatureOptions = {
      readOnly: true,
      allowTools: ['get_*'],
      keepTasksOnSessionEnd: ['watch_*'],
      eventFeed: false,
      eventBuffer: 10,
      resourceUpdateIntervalMs: 100,
      nativeTasks: { pollIntervalMs: 250 },
    };
    // @ts-expect-error a misspelled option is a type error, not a silently ignored key
    const misspelled: BuiltinFeatureOptions = { readonly: true };
    expect(misspelled).toBeDefined();
    const h = open({ features: builtinFeatures(options) });
    expect(h.app.registry.get('drive')).toBeUndefined(); // readOnly reached the tool policy
    expect(h.app.registry.get('get_events')).toBeUndefined(); // eventFeed: false reached the feed
    expect(() => open({ features: builtinFeatures({ nativeTasks: { pollIntervalMs: 0 } }) })).toThrow(
      /pollIntervalMs/,
    );
  });

  it("a feature's tool may not take a name already offered: bootstrap fails naming it", () => {
    const clash: Feature = {
      name: 'clash',
      needs: [],
      setup: () => ({ tools: [kitTool('drive')] }),
    };
    expect(() => open({ features: [...builtinFeatures(), clash] })).toThrow(
      /tool name "drive" is offered twice \(a server class's tool and the kit's or a feature's tool\)/,
    );
  });

  it('the kit tools the built-in features offer are exactly the reserved names authors cannot take', () => {
    const h = open({ eventFeed: true });
    const kit = h.app.registry.tools.filter((t) => t.origin === 'kit').map((t) => t.name);
    expect([...kit].sort()).toEqual([...RESERVED_TOOL_NAMES].sort());
  });
});

/** A minimal kit-origin tool named `name`. */
function kitTool(name: string): RegisteredTool {
  return {
    name,
    description: 'clashes',
    annotations: {},
    inputSchema: { type: 'object' },
    origin: 'kit',
    longRunning: false,
    actuates: false,
    call: () => Promise.resolve({ content: [] }),
  };
}
