// The example itself as a child process, receiving from a spawned sleeper.
import { afterEach, beforeAll, describe, expect, it } from '@jest/globals';
import {
  cancelTask,
  connectClient,
  exitOf,
  freePort,
  getTask,
  RECEIVER_MAIN,
  range,
  requireBuilt,
  Resources,
  SECRET,
  SLEEPER_MAIN,
  spawnNode,
  startSleep,
  startSleeper,
  waitFor,
} from './e2e.harness.js';

const resources = new Resources();

beforeAll(() => requireBuilt(SLEEPER_MAIN, RECEIVER_MAIN));
afterEach(() => resources.cleanup());

/** The `event sleeper/<task> seq=N <type> …` lines of one task, parsed. */
function eventLines(stdout: string, taskId: string): { seq: number; type: string; line: string }[] {
  const pattern = new RegExp(`^event sleeper/${taskId} seq=(\\d+) (\\S+)`);
  return stdout
    .split('\n')
    .map((line) => ({ line, match: pattern.exec(line) }))
    .filter(({ match }) => match !== null)
    .map(({ line, match }) => ({ seq: Number(match![1]), type: match![2]!, line }));
}

describe('examples/chat-app-receiver as a process', () => {
  it('reconciles on start, then prints each event of a sleeper task once, in order; exits 0 on SIGTERM', async () => {
    const port = await freePort();
    const sleeper = await startSleeper(resources, {
      RVC_CALLBACK_URL: `http://127.0.0.1:${port}/api/agent/events`,
      RVC_EVENT_SECRET: SECRET,
    });
    const client = await connectClient(resources, sleeper.url);
    // A task already running when the app starts, held open by the test (an hour long, cancelled
    // at the end) so it is still running whatever the machine's load: the start-up reconcile adopts it.
    const held = await startSleep(client, { duration_s: 3600 });

    const app = spawnNode(resources, RECEIVER_MAIN, {
      RECEIVER_PORT: String(port),
      RECEIVER_SECRETS: `sleeper=${SECRET}`,
      RECEIVER_SERVERS: `sleeper=${sleeper.url}`,
    });
    const exited = () => (app.child.exitCode !== null ? `it exited: ${app.stderr()}` : undefined);
    // The report's lines may reach the pipe in separate chunks: wait for the last one it prints.
    await waitFor(
      'the start-up reconcile',
      () =>
        app.stdout().includes(`task sleeper/${held} sleep_task running`) &&
        app.stdout().includes(`listening on http://127.0.0.1:${port}/`),
      15_000,
      exited,
    );
    expect(app.stdout()).toMatch(
      /^reconciled: 1 running, 0 tracked answered \(0 lost\), 0 unresolved, 0 errors$/m,
    );
    expect(app.stdout()).toContain(`task sleeper/${held} sleep_task running`);

    // A task started while the app listens: each of its events is printed once, in order.
    const taskId = await startSleep(client, {
      duration_s: 3,
      triggers: [{ type: 'eta_below', seconds: 1 }],
    });
    await waitFor(
      'task_done',
      () => eventLines(app.stdout(), taskId).find((e) => e.type === 'task_done'),
      30_000,
      exited,
    );

    const stdout = app.stdout();
    const events = eventLines(stdout, taskId);
    expect(events.map((e) => e.seq)).toEqual(range(events.length));
    expect(events.map((e) => e.type)).toEqual(
      expect.arrayContaining(['progress', 'trigger_fired', 'task_done']),
    );
    expect(events.find((e) => e.type === 'trigger_fired')?.line).toContain(
      'trigger={"type":"eta_below","seconds":1}',
    );
    expect(events[events.length - 1]!.line).toBe(
      `event sleeper/${taskId} seq=${events.length} task_done result={"slept_s":3}`,
    );
    expect((await getTask(client, taskId)).state).toBe('succeeded');
    expect((await getTask(client, held)).state).toBe('running');
    // Logs go to stderr (JSON) and never carry the secret.
    expect(app.stderr()).toContain('connected to MCP server');
    expect(app.stderr() + stdout).not.toContain(SECRET);

    app.child.kill('SIGTERM');
    expect(await exitOf(app.child)).toBe(0);
    await cancelTask(client, held);
  });

  it('reports a gap and reconciles when it starts after a task’s first events were delivered elsewhere', async () => {
    const port = await freePort();
    const sleeper = await startSleeper(resources, {
      RVC_CALLBACK_URL: `http://127.0.0.1:${port}/api/agent/events`,
      RVC_EVENT_SECRET: SECRET,
    });
    const client = await connectClient(resources, sleeper.url);
    const env = {
      RECEIVER_PORT: String(port),
      RVC_SECRET_SLEEPER: SECRET,
      RECEIVER_SERVERS: `sleeper=${sleeper.url}`,
    };
    // Held open by the test (an hour long, cancelled at the end): it keeps sending progress events
    // to whichever app process listens, however slow the machine is.
    const taskId = await startSleep(client, { duration_s: 3600 });
    const first = spawnNode(resources, RECEIVER_MAIN, env);
    await waitFor('the first event', () => eventLines(first.stdout(), taskId)[0], 15_000);
    first.child.kill('SIGTERM');
    expect(await exitOf(first.child)).toBe(0);

    // A new app process on the same port: its first event of the task is not seq 1.
    const second = spawnNode(resources, RECEIVER_MAIN, env);
    const exited = () => (second.child.exitCode !== null ? `it exited: ${second.stderr()}` : undefined);
    await waitFor(
      'the gap reconcile',
      () =>
        /^reconciled: \d+ running, 1 tracked/m.test(second.stdout()) &&
        new RegExp(`^task sleeper/${taskId} sleep_task running`, 'm').test(second.stdout()),
      30_000,
      exited,
    );

    const seen = eventLines(second.stdout(), taskId);
    expect(seen[0]!.seq).toBeGreaterThanOrEqual(2);
    expect(second.stdout()).toContain(`gap sleeper/${taskId} missed seq `);
    expect(second.stdout()).toMatch(new RegExp(`^task sleeper/${taskId} sleep_task running`, 'm'));
    second.child.kill('SIGTERM');
    expect(await exitOf(second.child)).toBe(0);
    await cancelTask(client, taskId);
  });

  it('exits 1 with a message naming the variable when no secret is configured', async () => {
    const app = spawnNode(resources, RECEIVER_MAIN, { RECEIVER_SERVERS: 'sleeper=http://127.0.0.1:9/mcp' });
    expect(await exitOf(app.child)).toBe(1);
    expect(app.stderr()).toContain('chat-app-receiver: RECEIVER_SECRETS: no server secret is set');
  });
});
