import { afterEach, describe, expect, it } from '@jest/globals';
import { TaskResourceCatalog } from '../../../src/task-views/task-resources.catalog.js';
import { ArmServer } from '../fixtures/arm.server.js';
import { type AppHarness, startApp, until } from '../fixtures/multi-client.js';

let h: AppHarness<ArmServer> | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

const HINT = /not found; use tasks:\/\/running or tasks:\/\/<task_id> of a task list_tasks shows/;

describe('TaskResourceCatalog (the tasks:// rules both legs install)', () => {
  it('lists, reads and refuses URIs from the task manager', async () => {
    h = startApp(ArmServer);
    const s = await h.session();
    const id = await s.start('drive');
    await until(() => h!.server.controls.has(id));
    const catalog = new TaskResourceCatalog(h.app.taskManager);
    expect(await catalog.list()).toEqual([
      expect.objectContaining({ uri: 'tasks://running', name: 'running_tasks', title: 'Running tasks' }),
      expect.objectContaining({ uri: `tasks://${id}`, name: id, title: 'drive (running)' }),
    ]);
    expect(catalog.templates()).toEqual([expect.objectContaining({ uriTemplate: 'tasks://{task_id}' })]);
    const read = await catalog.read(`tasks://${id}`);
    expect(JSON.parse(read!.contents[0]!.text)).toMatchObject({ task_id: id, state: 'running' });
    expect(await catalog.read('tasks://arm-ffffff')).toBeUndefined();
    expect(await catalog.read(`tasks://${id}/more`)).toBeUndefined();
    expect(await catalog.read('file:///etc/passwd')).toBeUndefined();
    expect(catalog.exists(`tasks://${id}`)).toBe(true);
    expect(catalog.exists('tasks://running')).toBe(true);
    expect(catalog.exists('tasks://')).toBe(false);
    expect(catalog.notFoundMessage('x'.repeat(500)).length).toBeLessThan(300);
  });

  it('is what a 2025 session (one low-level SDK Server) answers', async () => {
    h = startApp(ArmServer);
    const s = await h.session();
    expect(s.client.getServerCapabilities()).toMatchObject({
      tools: { listChanged: false },
      resources: { subscribe: true, listChanged: true },
    });
    expect(s.client.getServerVersion()).toMatchObject({ name: 'arm', version: '0.0.1' });
    const id = await s.start('drive');
    const catalog = new TaskResourceCatalog(h.app.taskManager);
    expect((await s.client.listResources()).resources).toEqual(await catalog.list());
    expect((await s.client.listResourceTemplates()).resourceTemplates).toEqual(catalog.templates());
    expect(await s.client.readResource({ uri: `tasks://${id}` })).toEqual(
      await catalog.read(`tasks://${id}`),
    );
    await expect(s.client.readResource({ uri: 'file:///etc/passwd' })).rejects.toThrow(HINT);
    await expect(s.client.readResource({ uri: 'tasks://arm-ffffff' })).rejects.toThrow(HINT);
    await expect(s.client.subscribeResource({ uri: 'file:///etc/passwd' })).rejects.toThrow(HINT);
  });
});
