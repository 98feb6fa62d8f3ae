import { afterEach, describe, expect, it } from '@jest/globals';
import { ResourceUpdatedNotificationSchema } from '@modelcontextprotocol/sdk/types.js';
import { ManualClock } from '@robot-mcp-kit/core/testing';
import { bootstrap } from '@robot-mcp-kit/server';
import { UpdateCoalescer } from '../../../src/task-views/update-coalescer.js';
import { ArmServer } from '../fixtures/arm.server.js';
import { type AppHarness, type Session, startApp, until } from '../fixtures/multi-client.js';

let h: AppHarness<ArmServer> | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

async function readJson(session: Session, uri: string): Promise<Record<string, unknown>> {
  const { contents } = await session.client.readResource({ uri });
  expect(contents[0]).toMatchObject({ uri, mimeType: 'application/json' });
  return JSON.parse((contents[0] as { text: string }).text) as Record<string, unknown>;
}

function updates(session: Session): string[] {
  const seen: string[] = [];
  session.client.setNotificationHandler(ResourceUpdatedNotificationSchema, (n) => {
    seen.push(n.params.uri);
  });
  return seen;
}

describe('task resources', () => {
  it('advertises subscribe, lists tasks://running and one resource per task, reads TaskInfo JSON', async () => {
    h = startApp(ArmServer);
    const s = await h.session();
    expect(s.client.getServerCapabilities()?.resources).toMatchObject({ subscribe: true });
    const id = await s.start('drive');
    const { resources } = await s.client.listResources();
    expect(resources.map((r) => r.uri)).toEqual(['tasks://running', `tasks://${id}`]);
    const { resourceTemplates } = await s.client.listResourceTemplates();
    expect(resourceTemplates.map((t) => t.uriTemplate)).toEqual(['tasks://{task_id}']);
    expect(await readJson(s, `tasks://${id}`)).toMatchObject({
      task_id: id,
      tool: 'drive',
      state: 'running',
    });
    expect(await readJson(s, 'tasks://running')).toMatchObject({ tasks: [{ task_id: id }] });
    expect(await readJson(s, `tasks://${id}`)).toEqual(
      JSON.parse(JSON.stringify(h.app.taskManager.get(id)?.toJSON())) as Record<string, unknown>,
    );
    await expect(s.client.readResource({ uri: 'tasks://arm-ffffff' })).rejects.toThrow(
      /tasks:\/\/arm-ffffff not found/,
    );
  });

  it('notifies subscribers (only them) of changes, coalescing bursts per URI', async () => {
    h = startApp(ArmServer);
    const a = await h.session();
    const b = await h.session();
    const seenA = updates(a);
    const seenB = updates(b);
    const id = await a.start('drive');
    await until(() => h!.server.controls.has(id));
    await a.client.subscribeResource({ uri: `tasks://${id}` });
    await b.client.subscribeResource({ uri: 'tasks://running' });
    const { ctx } = h.server.control(id);
    for (let i = 0; i < 10; i += 1) await ctx.progress({ percent: i }); // a 10 Hz burst
    await until(() => seenA.length === 1 && seenB.length === 1);
    expect(seenA).toEqual([`tasks://${id}`]);
    expect(seenB).toEqual(['tasks://running']);
    await h.clock.advance(250); // the window closes: one update with the last state
    await until(() => seenA.length === 2 && seenB.length === 2);
    await h.clock.advance(1000);
    expect(seenA).toHaveLength(2);
    expect(await readJson(a, `tasks://${id}`)).toMatchObject({ progress: { percent: 9 } });
    h.server.control(id).finish();
    await until(() => seenA.length === 3);
    await a.client.unsubscribeResource({ uri: `tasks://${id}` });
    await h.clock.advance(1000);
    await b.start('watch_people');
    await until(() => seenB.length >= 3);
    expect(seenA).toHaveLength(3);
  });

  it('refuses to subscribe to an unknown URI', async () => {
    h = startApp(ArmServer);
    const s = await h.session();
    await expect(s.client.subscribeResource({ uri: 'tasks://nope-000000' })).rejects.toThrow(/not found/);
    await expect(s.client.subscribeResource({ uri: 'file:///etc/passwd' })).rejects.toThrow(/not found/);
  });

  it('fails fast on a bad RMK_RESOURCE_UPDATE_MS', () => {
    expect(() => bootstrap(ArmServer, { env: { RMK_RESOURCE_UPDATE_MS: '-5' } })).toThrow(
      /RMK_RESOURCE_UPDATE_MS/,
    );
  });
});

describe('UpdateCoalescer', () => {
  it('emits at once, folds touches inside the window into one trailing emit, per key', async () => {
    const clock = new ManualClock();
    const emitted: string[] = [];
    const coalescer = new UpdateCoalescer(250, clock, (key) => emitted.push(key));
    coalescer.touch('a');
    coalescer.touch('a');
    coalescer.touch('b');
    coalescer.touch('a');
    expect(emitted).toEqual(['a', 'b']);
    await clock.advance(250);
    expect(emitted).toEqual(['a', 'b', 'a']);
    await clock.advance(250);
    expect(emitted).toEqual(['a', 'b', 'a']);
    expect(clock.pending).toBe(0);
    coalescer.touch('a');
    coalescer.touch('a');
    coalescer.close();
    await clock.advance(1000);
    expect(emitted).toEqual(['a', 'b', 'a', 'a']);
    const eager = new UpdateCoalescer(0, clock, (key) => emitted.push(key));
    eager.touch('z');
    eager.touch('z');
    expect(emitted.slice(-2)).toEqual(['z', 'z']);
  });

  it('serves every key with one timer: windows close in the order they opened, each after its own interval', async () => {
    const clock = new ManualClock();
    const emitted: string[] = [];
    const coalescer = new UpdateCoalescer(250, clock, (key) => emitted.push(`${key}@${clock.now()}`));
    const t0 = clock.now();
    coalescer.touch('a');
    await clock.advance(100);
    coalescer.touch('b');
    coalescer.touch('a');
    coalescer.touch('b');
    for (let i = 0; i < 1000; i += 1) coalescer.touch(`task-${i}`);
    expect(clock.pending).toBe(1);
    await clock.advance(150); // a's window closes at t0 + 250 with a pending touch
    expect(emitted.filter((e) => !e.startsWith('task-'))).toEqual([
      `a@${t0}`,
      `b@${t0 + 100}`,
      `a@${t0 + 250}`,
    ]);
    await clock.advance(100); // b's (and the tasks') at t0 + 350
    expect(emitted.filter((e) => !e.startsWith('task-')).at(-1)).toBe(`b@${t0 + 350}`);
    expect(clock.pending).toBe(1);
    await clock.advance(250); // the reopened windows close with nothing pending
    expect(emitted).toHaveLength(2 + 1000 + 2);
    expect(clock.pending).toBe(0);
    coalescer.close();
  });
});
