import { afterEach, describe, expect, it } from '@jest/globals';
import { until } from '../../fixtures/harness.js';
import { RoverServer } from '../../fixtures/rover.server.js';
import { BEARER_AUTH, closeAll, GENERATIONS, serve } from '../../support/generations.harness.js';

/*
 * The `tasks://` resources are written once (the task-resources feature installs into the kit's
 * session surface) and served on both generations: the same assertions, through the official v1
 * SDK client on 2025-11-25 and the official v2 SDK client on 2026-07-28, over real streamable HTTP.
 */
afterEach(closeAll);

/** Lets the drive body take its next step (it reports progress after each). */
async function step(rover: RoverServer): Promise<void> {
  await until(() => rover.gates.length > 0, 'the next drive step');
  rover.gates.shift()!();
}

const json = (read: { contents: { text?: string }[] }): Record<string, unknown> =>
  JSON.parse(read.contents[0]!.text!) as Record<string, unknown>;

describe.each(GENERATIONS)('task resources on MCP %s', (generation) => {
  it('declares them, lists tasks://running and the task, reads its TaskInfo JSON', async () => {
    const served = await serve(RoverServer);
    const agent = await served.agent(generation);
    expect(agent.resources.capability()).toEqual({ subscribe: true, listChanged: true });
    const { task_id: taskId } = await agent.json<{ task_id: string }>('drive', { distance_m: 1 });
    const uri = `tasks://${taskId}`;
    expect((await agent.resources.list()).map((resource) => resource.uri)).toEqual(['tasks://running', uri]);
    expect(await agent.resources.list()).toContainEqual(
      expect.objectContaining({ uri, name: taskId, title: 'drive (running)', mimeType: 'application/json' }),
    );
    expect((await agent.resources.templates()).map((template) => template.uriTemplate)).toEqual([
      'tasks://{task_id}',
    ]);
    const read = await agent.resources.read(uri);
    expect(read.contents[0]).toMatchObject({ uri, mimeType: 'application/json' });
    expect(json(read)).toEqual(JSON.parse(JSON.stringify(served.app.taskManager.get(taskId)!.toJSON())));
    expect(json(await agent.resources.read('tasks://running'))).toMatchObject({
      tasks: [{ task_id: taskId, state: 'running' }],
    });
    await expect(agent.resources.read('tasks://rover-ffffff')).rejects.toThrow(
      /Resource tasks:\/\/rover-ffffff not found; use tasks:\/\/running/,
    );
  });

  it('announces the changes of a followed URI to the agents that follow it, and only that URI', async () => {
    const served = await serve(RoverServer);
    const following = await served.agent(generation);
    const other = await served.agent(generation);
    const { task_id: taskId } = await following.json<{ task_id: string }>('drive', { distance_m: 1 });
    const uri = `tasks://${taskId}`;
    await following.resources.follow(uri);
    await other.resources.follow('tasks://running');
    await step(served.instance);
    await until(() => following.resources.updated.includes(uri), 'resources/updated of the task');
    await until(() => other.resources.updated.includes('tasks://running'), 'resources/updated of the list');
    expect(json(await following.resources.read(uri))).toMatchObject({ progress: { percent: 25 } });
    await following.call('cancel_task', { task_id: taskId });
    const before = following.resources.updated.length;
    await until(() => following.resources.updated.length > before, 'the update of the cancellation');
    expect(json(await following.resources.read(uri))).toMatchObject({ state: 'cancelled' });
    expect(following.resources.updated.every((updated) => updated === uri)).toBe(true);
    expect(other.resources.updated.every((updated) => updated === 'tasks://running')).toBe(true);
  });

  it('announces a list change when a task starts and when it ends', async () => {
    const served = await serve(RoverServer);
    const agent = await served.agent(generation);
    await agent.resources.followList();
    const { task_id: taskId } = await agent.json<{ task_id: string }>('drive', { distance_m: 1 });
    await until(() => agent.resources.listChanges >= 1, 'list_changed of the start');
    const started = agent.resources.listChanges;
    await agent.call('cancel_task', { task_id: taskId });
    await until(() => agent.resources.listChanges > started, 'list_changed of the end');
    const listed = await agent.resources.list();
    expect(listed).toContainEqual(
      expect.objectContaining({ uri: `tasks://${taskId}`, title: 'drive (cancelled)' }),
    );
  });

  it("one principal neither lists nor reads another's task", async () => {
    const served = await serve(RoverServer, { auth: BEARER_AUTH });
    const alice = await served.agent(generation, { principal: 'alice' });
    const bob = await served.agent(generation, { principal: 'bob' });
    const { task_id: taskId } = await alice.json<{ task_id: string }>('drive', { distance_m: 1 });
    const uri = `tasks://${taskId}`;
    expect((await alice.resources.list()).map((resource) => resource.uri)).toEqual(['tasks://running', uri]);
    expect((await bob.resources.list()).map((resource) => resource.uri)).toEqual(['tasks://running']);
    expect(json(await bob.resources.read('tasks://running'))).toEqual({ tasks: [] });
    await expect(bob.resources.read(uri)).rejects.toThrow(/not found/);
    expect(json(await alice.resources.read(uri))).toMatchObject({ task_id: taskId });
  });
});
