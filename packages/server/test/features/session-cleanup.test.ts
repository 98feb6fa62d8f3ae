import { afterEach, describe, expect, it } from '@jest/globals';
import { ConfigError, ManualClock, MemoryLogger, TaskManager } from '@robot-mcp-kit/core';
import { bootstrap, cancelSessionTasks, TaskStarter } from '@robot-mcp-kit/server';
import { ArmServer } from './fixtures/arm.server.js';
import { type AppHarness, startApp, textOf, until } from './fixtures/multi-client.js';

let h: AppHarness<ArmServer> | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

const stateOf = (harness: AppHarness<ArmServer>, taskId: string) =>
  harness.app.taskManager.get(taskId)?.state;

describe('clean exit: a session that goes away', () => {
  it("cancels the tasks it started and leaves another session's tasks running", async () => {
    h = startApp(ArmServer);
    const a = await h.session();
    const b = await h.session();
    const drive = await a.start('drive');
    const watch = await a.start('watch_people');
    const other = await b.start('move_arm');
    expect(h.app.starter.tasksOfSession(h.app.starter.sessionOfTask(drive)!).sort()).toEqual(
      [drive, watch].sort(),
    );
    await a.close();
    await until(() => stateOf(h!, drive) === 'cancelled' && stateOf(h!, watch) === 'cancelled');
    expect(stateOf(h, other)).toBe('running');
    await until(() => h!.logger.entries.some((e) => e.message.includes('cancelled the tasks it started')));
    expect(
      h.logger.entries.find((e) => e.message.includes('cancelled the tasks it started'))?.meta,
    ).toMatchObject({
      tasks: expect.arrayContaining([drive, watch]),
      settled: true,
    });
    // the remaining session still works and can cancel its own task
    expect(await b.json('cancel_task', { task_id: other })).toEqual({ task_id: other, state: 'cancelled' });
  });

  it('leaves finished tasks alone', async () => {
    h = startApp(ArmServer);
    const a = await h.session();
    const done = await a.start('watch_people');
    await until(() => h!.server.controls.has(done));
    h.server.control(done).finish({ seen: 0 });
    await until(() => stateOf(h!, done) === 'succeeded');
    await a.close();
    await until(() => h!.app.sessionCount === 0);
    expect(stateOf(h, done)).toBe('succeeded');
  });

  it('RMK_KEEP_TASKS=1 keeps every task running', async () => {
    h = startApp(ArmServer, { env: { RMK_KEEP_TASKS: '1' } });
    const a = await h.session();
    const drive = await a.start('drive');
    await a.close();
    await until(() => h!.app.sessionCount === 0);
    await h.clock.advance(10_000);
    expect(stateOf(h, drive)).toBe('running');
  });

  it('RMK_KEEP_TASKS with patterns keeps the tasks of those tools only (watchers)', async () => {
    h = startApp(ArmServer, { env: { RMK_KEEP_TASKS: 'watch_*' } });
    const a = await h.session();
    const drive = await a.start('drive');
    const watch = await a.start('watch_people');
    await a.close();
    await until(() => stateOf(h!, drive) === 'cancelled');
    expect(stateOf(h, watch)).toBe('running');
  });

  it('the keepTasksOnSessionEnd option wins over the variable', async () => {
    h = startApp(ArmServer, { keepTasksOnSessionEnd: false, env: { RMK_KEEP_TASKS: '1' } });
    const a = await h.session();
    const drive = await a.start('drive');
    await a.close();
    await until(() => stateOf(h!, drive) === 'cancelled');
  });

  it('fails fast on bad keep settings, naming the variable or option', () => {
    expect(() => bootstrap(ArmServer, { env: { RMK_KEEP_TASKS: '2' } })).toThrow(/RMK_KEEP_TASKS: "2"/);
    expect(() => bootstrap(ArmServer, { env: { RMK_KEEP_TASKS: 'nav_*' } })).toThrow(
      /RMK_KEEP_TASKS: pattern "nav_\*" matches no long-running tool; they are move_arm, drive, watch_people/,
    );
    expect(() => bootstrap(ArmServer, { env: { RMK_KEEP_TASKS: '!drive' } })).toThrow(/RMK_KEEP_TASKS/);
    expect(() => bootstrap(ArmServer, { env: {}, keepTasksOnSessionEnd: ['get_pose'] })).toThrow(
      /^keepTasksOnSessionEnd: /,
    );
    expect(() => bootstrap(ArmServer, { env: {}, keepTasksOnSessionEnd: 'x' as unknown as boolean })).toThrow(
      ConfigError,
    );
    expect(() => bootstrap(ArmServer, { env: { RMK_SESSION_IDLE_S: 'soon' } })).toThrow(/RMK_SESSION_IDLE_S/);
  });

  it('waits at most 5 s for cancelled bodies that do not stop', async () => {
    const clock = new ManualClock();
    const logger = new MemoryLogger();
    const taskManager = new TaskManager({ serverName: 'stubborn', clock, cancelGraceMs: 60_000 });
    const starter = new TaskStarter(taskManager);
    const info = await starter.start({
      definition: { name: 'spin', kind: 'long-running', preempt: false } as never,
      call: { session: { id: 's1' }, extra: {} as never },
      triggers: undefined,
      estDurationS: undefined,
      body: () => new Promise(() => undefined),
    });
    let done = false;
    const cleanup = cancelSessionTasks(
      { id: 's1' },
      { starter, taskManager, clock, logger },
      { all: false, patterns: [] },
    );
    void cleanup.then(() => (done = true));
    await clock.advance(4_999);
    expect(done).toBe(false);
    expect(taskManager.get(info.task_id)?.state).toBe('cancelled');
    await clock.advance(1);
    expect(await cleanup).toEqual([info.task_id]);
    expect(logger.entries.at(-1)?.meta).toMatchObject({ settled: false });
  });
});

describe('concurrency limits', () => {
  it('refuses a call over maxConcurrent with a tool error naming the running task ids', async () => {
    h = startApp(ArmServer);
    const a = await h.session();
    const b = await h.session();
    const first = await a.start('move_arm');
    const refused = await b.call('move_arm', {});
    expect(refused.isError).toBe(true);
    expect(textOf(refused)).toContain(
      `move_arm allows 1 running task(s) at once and 1 are running: ${first}`,
    );
    expect(textOf(refused)).toContain('cancel_task');
    expect(stateOf(h, first)).toBe('running');
    await a.json('cancel_task', { task_id: first });
    expect(await b.start('move_arm')).not.toBe(first);
  });

  it('with preempt, cancels the running task first and starts the new one', async () => {
    h = startApp(ArmServer);
    const a = await h.session();
    const first = await a.start('drive');
    const second = await a.start('drive');
    expect(second).not.toBe(first);
    expect(stateOf(h, first)).toBe('cancelled');
    expect(stateOf(h, second)).toBe('running');
    const running = await a.json<{ tasks: { task_id: string }[] }>('list_tasks', { states: ['running'] });
    expect(running.tasks.map((t) => t.task_id)).toEqual([second]);
  });

  it('tools without a limit run side by side', async () => {
    h = startApp(ArmServer);
    const a = await h.session();
    await a.start('watch_people');
    await a.start('watch_people');
    expect(h.app.taskManager.runningCount).toBe(2);
  });
});

describe('TaskStarter hooks', () => {
  it('calls onStarted listeners with the task and session before the body runs; a throwing one is logged', async () => {
    const logger = new MemoryLogger();
    const taskManager = new TaskManager({ serverName: 'hooks', logger });
    const starter = new TaskStarter(taskManager);
    const seen: string[] = [];
    let bodyRan = false;
    const stop = starter.onStarted((info, sessionId) =>
      seen.push(`${info.task_id}@${sessionId}:${String(bodyRan)}`),
    );
    starter.onStarted(() => {
      throw new Error('listener bug');
    });
    const request = (session: string) => ({
      definition: { name: 'spin', kind: 'long-running', preempt: false } as never,
      call: { session: { id: session }, extra: {} as never },
      triggers: undefined,
      estDurationS: undefined,
      body: async () => {
        bodyRan = true;
        return {};
      },
    });
    const info = await starter.start(request('s1'));
    expect(seen).toEqual([`${info.task_id}@s1:false`]);
    expect(logger.entries.find((e) => e.message.includes('task-started listener threw'))?.meta).toMatchObject(
      {
        task_id: info.task_id,
        error: 'listener bug',
      },
    );
    stop();
    await starter.start(request('s2'));
    expect(seen).toHaveLength(1);
    starter.stopIntake();
    await expect(starter.start(request('s3'))).rejects.toThrow(/shutting down/);
    await taskManager.aclose();
  });
});
