import { afterEach, describe, expect, it } from '@jest/globals';
import { eventFeedOf } from '@robot-mcp-kit/server/advanced';
import { until } from '../../fixtures/harness.js';
import { RoverServer } from '../../fixtures/rover.server.js';
import { BEARER_AUTH, closeAll, GENERATIONS, serve } from '../../support/generations.harness.js';

type Json = Record<string, unknown>;

afterEach(closeAll);

/** Lets the drive body take its next step (it reports progress after each). */
async function step(rover: RoverServer): Promise<void> {
  await until(() => rover.gates.length > 0, 'the next drive step');
  rover.gates.shift()!();
}

describe.each(GENERATIONS)('the event feed on MCP %s', (generation) => {
  it('lists get_events and wait_for_event; the task answer and get_task carry feed_cursor', async () => {
    const served = await serve(RoverServer);
    const agent = await served.agent(generation);
    expect(await agent.toolNames()).toEqual(expect.arrayContaining(['get_events', 'wait_for_event']));
    const started = await agent.json('drive', { distance_m: 1 });
    expect(started).toMatchObject({ task_id: expect.any(String), state: 'running', feed_cursor: 0 });
    const taskId = started.task_id as string;
    expect(await agent.json('get_task', { task_id: taskId })).toMatchObject({ feed_cursor: 0 });
    await step(served.instance);
    const waited = await agent.json('wait_for_event', { task_id: taskId, type: 'progress', timeout_s: 5 });
    expect(waited).toMatchObject({
      timeout: false,
      entry: { cursor: 1, kind: 'event', event: { task_id: taskId, type: 'progress' } },
    });
    const page = await agent.json<{ entries: Json[]; cursor: number }>('get_events', { since: 0 });
    expect(page.entries.map((entry) => entry.cursor)).toEqual([1]);
  });

  it('a wait without since or task_id right after a start finds an event fired in between', async () => {
    const served = await serve(RoverServer);
    const agent = await served.agent(generation);
    const feed = eventFeedOf(served.app)!;
    const started = await agent.json('drive', { distance_m: 1 });
    await step(served.instance);
    await until(() => feed.newest === 1, 'the first progress entry');
    // the agent was busy: the progress fired before it asked
    const waited = await agent.json('wait_for_event', { type: 'progress', timeout_s: 2 });
    expect(waited).toMatchObject({
      timeout: false,
      entry: { cursor: 1, event: { task_id: started.task_id, type: 'progress' } },
    });
  });

  it('a cancelled task is an entry of its own', async () => {
    const served = await serve(RoverServer);
    const agent = await served.agent(generation);
    const { task_id: taskId } = await agent.json<{ task_id: string }>('drive', { distance_m: 1 });
    expect(await agent.json('cancel_task', { task_id: taskId })).toMatchObject({ state: 'cancelled' });
    const found = await agent.json('wait_for_event', { task_id: taskId, type: 'cancelled', timeout_s: 5 });
    expect(found).toMatchObject({ timeout: false, entry: { kind: 'cancelled', task_id: taskId } });
  });
});

describe.each(GENERATIONS)('the event feed per principal on MCP %s', (generation) => {
  it("one principal's start cursor and entries are not another's", async () => {
    const served = await serve(RoverServer, { auth: BEARER_AUTH });
    const alice = await served.agent(generation, { principal: 'alice' });
    const bob = await served.agent(generation, { principal: 'bob' });
    const feed = eventFeedOf(served.app)!;
    const started = await alice.json('drive', { distance_m: 1 });
    await step(served.instance);
    await until(() => feed.newest === 1, 'the first progress entry');
    const missed = await bob.json('wait_for_event', { type: 'progress', timeout_s: 1 });
    expect(missed).toMatchObject({ timeout: true });
    expect((await bob.json<{ entries: Json[] }>('get_events', { since: 0 })).entries).toEqual([]);
    const found = await alice.json('wait_for_event', { type: 'progress', timeout_s: 2 });
    expect(found).toMatchObject({
      timeout: false,
      entry: { cursor: 1, event: { task_id: started.task_id } },
    });
  });
});
