import { type ToolNames } from './tool.snippets.js';

/** The test of a new tool, using the project's test harness. */
export function toolTestText(
  names: ToolNames,
  longRunning: boolean,
  harnessSpecifier: string,
  actuates = longRunning,
): string {
  const imports = longRunning
    ? 'callTool, type Harness, startServer, waitForTask'
    : 'callTool, type Harness, startServer';
  const acting = actuates ? actingTest(names) : readOnlyTest(names);
  const body = longRunning ? longRunningTests(names) : plainTests(names);
  return `import { ${imports} } from '${harnessSpecifier}';

describe('${names.tool}', () => {
  let server: Harness;

  beforeEach(async () => {
    server = await startServer();
  });

  afterEach(async () => {
    await server.close();
  });

  it('is listed', async () => {
    const { tools } = await server.client.listTools();
    expect(tools.map((tool) => tool.name)).toContain('${names.tool}');
  });

${acting}${body}});
`;
}

/** A test that the tool is annotated destructive, so `--read-only` hides it. */
function actingTest(names: ToolNames): string {
  return `  it('acts on the world: annotated destructive, so --read-only does not offer it', async () => {
    const { tools } = await server.client.listTools();
    expect(tools.find((tool) => tool.name === '${names.tool}')?.annotations).toMatchObject({
      readOnlyHint: false,
      destructiveHint: true,
    });
  });

`;
}

/** A test that the tool is annotated read-only, so `--read-only` still offers it. */
function readOnlyTest(names: ToolNames): string {
  return `  it('only reads: annotated read-only, so --read-only still offers it', async () => {
    const { tools } = await server.client.listTools();
    expect(tools.find((tool) => tool.name === '${names.tool}')?.annotations).toMatchObject({ readOnlyHint: true });
  });

`;
}

/** The tests of a `@LongRunningTool`: it runs as a task with progress, and refuses bad arguments. */
function longRunningTests(names: ToolNames): string {
  return `  it('runs as a task and reports progress', async () => {
    const started = await callTool(server.client, '${names.tool}', {
      steps: 2,
      step_ms: 0,
      triggers: [{ type: 'progress_above', percent: 50 }],
    });
    expect(started.isError).toBe(false);
    expect(started.json).toMatchObject({ tool: '${names.tool}', state: 'running' });

    const done = await waitForTask(server.client, String(started.json.task_id));
    expect(done).toMatchObject({ state: 'succeeded', result: { steps_done: 2 } });

    await server.app.poster.flush(5000);
    const types = server.events.events.map((event) => event.type);
    expect(types.filter((type) => type === 'progress')).toHaveLength(2);
    expect(types).toContain('trigger_fired');
    expect(types.at(-1)).toBe('task_done');
  });

  it('refuses bad arguments', async () => {
    const answer = await callTool(server.client, '${names.tool}', { steps: 0 });
    expect(answer.isError).toBe(true);
    expect(answer.text).toContain('steps');
  });
`;
}

/** The tests of a plain `@Tool`: it answers at once, and refuses bad arguments. */
function plainTests(names: ToolNames): string {
  return `  it('answers at once', async () => {
    const answer = await callTool(server.client, '${names.tool}', { note: 'hello' });
    expect(answer.isError).toBe(false);
    expect(answer.json).toMatchObject({ tool: '${names.tool}', note: 'hello' });
  });

  it('refuses bad arguments', async () => {
    const answer = await callTool(server.client, '${names.tool}', { note: 42 });
    expect(answer.isError).toBe(true);
    expect(answer.text).toContain('note');
  });
`;
}
