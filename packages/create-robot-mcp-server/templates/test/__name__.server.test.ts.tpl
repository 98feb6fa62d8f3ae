import { callTool, type Harness, startServer, waitForTask } from './support/harness.js';

describe('{{className}}', () => {
  let server: Harness;

  beforeEach(async () => {
    server = await startServer();
  });

  afterEach(async () => {
    await server.close();
  });

  it('lists its tools and the task tools of the kit', async () => {
    const { tools } = await server.client.listTools();
    expect(tools.map((tool) => tool.name)).toEqual(
      expect.arrayContaining(['{{lrTool}}', '{{plainTool}}', 'get_task', 'cancel_task', 'list_tasks']),
    );
  });

  it('answers {{plainTool}} at once', async () => {
    const answer = await callTool(server.client, '{{plainTool}}', { note: 'hello' });
    expect(answer.isError).toBe(false);
    expect(answer.json).toMatchObject({ server: '{{name}}', note: 'hello' });
  });

  it('runs {{lrTool}} as a task: progress, a trigger, then the result', async () => {
    const started = await callTool(server.client, '{{lrTool}}', {
      steps: 3,
      step_ms: 0,
      triggers: [{ type: 'step_reached', step: 2 }],
    });
    expect(started.isError).toBe(false);
    expect(started.json).toMatchObject({ tool: '{{lrTool}}', state: 'running' });

    const done = await waitForTask(server.client, String(started.json.task_id));
    expect(done).toMatchObject({ state: 'succeeded', result: { steps_done: 3 } });

    await server.app.poster.flush(5000);
    const events = server.events.events.map((event) => event.toJSON());
    expect(events.filter((event) => event.type === 'progress')).toHaveLength(3);
    expect(events.find((event) => event.type === 'trigger_fired')?.payload).toMatchObject({
      trigger: { type: 'step_reached', step: 2 },
      step: 2,
    });
    expect(events.at(-1)?.type).toBe('task_done');
  });

  it('under --read-only offers only the tools that do not act on the world', async () => {
    const readOnly = await startServer({ readOnly: true });
    try {
      const { tools } = await readOnly.client.listTools();
      const names = tools.map((tool) => tool.name);
      for (const acting of {{actuatingToolsJson}} as string[]) {
        expect(names).not.toContain(acting);
        await expect(callTool(readOnly.client, acting, {})).rejects.toThrow(/not found/);
      }
      for (const reading of {{readOnlyToolsJson}} as string[]) expect(names).toContain(reading);
      expect(names).toEqual(expect.arrayContaining(['get_task', 'cancel_task', 'list_tasks']));
    } finally {
      await readOnly.close();
    }
  });

  it('annotates the tools that act as destructive and the others as read-only', async () => {
    const { tools } = await server.client.listTools();
    for (const tool of tools.filter((t) => ({{actuatingToolsJson}} as string[]).includes(t.name))) {
      expect(tool.annotations).toMatchObject({ readOnlyHint: false, destructiveHint: true });
    }
    for (const tool of tools.filter((t) => ({{readOnlyToolsJson}} as string[]).includes(t.name))) {
      expect(tool.annotations).toMatchObject({ readOnlyHint: true });
    }
  });

  it('refuses bad arguments and says which field is wrong', async () => {
    const answer = await callTool(server.client, '{{lrTool}}', { steps: 0 });
    expect(answer.isError).toBe(true);
    expect(answer.text).toContain('steps');
  });

  it('refuses a trigger with a bad field', async () => {
    const answer = await callTool(server.client, '{{lrTool}}', { steps: 1, triggers: [{ type: 'step_reached' }] });
    expect(answer.isError).toBe(true);
    expect(answer.text).toContain('step');
  });
});
