import { afterEach, describe, expect, it } from '@jest/globals';
import { ConfigError, type JsonObject, TaskManager } from '@robot-mcp-kit/core';
import { ManualClock, MemoryLogger } from '@robot-mcp-kit/core/testing';
import { bootstrap, CapabilityServer, LongRunningTool } from '@robot-mcp-kit/server';
import { TaskStarter } from '@robot-mcp-kit/server/advanced';
import { TaskOwners } from '../../src/auth/task-owners.js';
import { TaskProjection } from '../../src/task-views/task-projection.js';
import {
  cancelSessionTasks,
  disconnectPolicy,
} from '../../src/features/session-cleanup/session-cleanup.feature.js';
import { ArmServer, LabelArgs } from './fixtures/arm.server.js';
import { TeleopServer } from './fixtures/teleop.server.js';
import { type AppHarness, startApp, textOf, until } from './fixtures/multi-client.js';

let h: AppHarness<ArmServer> | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

/** The harness holds one app at a time; TeleopServer tests only use its app and clock. */
const teleopApp = (options?: Parameters<typeof startApp>[1]) =>
  startApp(TeleopServer, options) as unknown as AppHarness<ArmServer>;

const stateOf = (harness: AppHarness<ArmServer>, taskId: string) =>
  harness.app.taskManager.get(taskId)?.state;

describe('tasks outlive their session; cancelOnDisconnect tools stop with it', () => {
  it('a session that goes away leaves the tasks it started running by default', async () => {
    h = startApp(ArmServer);
    const a = await h.session();
    const drive = await a.start('drive');
    const watch = await a.start('watch_people');
    await a.close();
    await until(() => h!.app.sessionCount === 0);
    await h.clock.advance(10_000);
    expect(stateOf(h, drive)).toBe('running');
    expect(stateOf(h, watch)).toBe('running');
    // poll is the truth: a later session sees them and can stop them
    const b = await h.session();
    expect(await b.json('get_task', { task_id: drive })).toMatchObject({ task_id: drive, state: 'running' });
    expect(await b.json('cancel_task', { task_id: drive })).toEqual({ task_id: drive, state: 'cancelled' });
  });

  it("cancels the cancelOnDisconnect tasks it started, not its other tasks nor another session's", async () => {
    h = teleopApp();
    const a = await h.session();
    const b = await h.session();
    const teleop = await a.start('teleop');
    const drive = await a.start('drive');
    const other = await b.start('jog');
    await a.close();
    await until(() => stateOf(h!, teleop) === 'cancelled');
    expect(stateOf(h, drive)).toBe('running');
    expect(stateOf(h, other)).toBe('running');
    await until(() =>
      h!.logger.entries.some((e) => e.message.includes('cancelled its cancelOnDisconnect tasks')),
    );
    expect(
      h.logger.entries.find((e) => e.message.includes('cancelled its cancelOnDisconnect tasks'))?.meta,
    ).toMatchObject({ tasks: [teleop], settled: true });
    expect(
      h.app.definition.tools.map((t) => [t.name, t.kind === 'long-running' && t.cancelOnDisconnect]),
    ).toEqual([
      ['teleop', true],
      ['jog', true],
      ['drive', false],
    ]);
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

  it('RMK_KEEP_TASKS=1 keeps even cancelOnDisconnect tasks running', async () => {
    h = teleopApp({ env: { RMK_KEEP_TASKS: '1' } });
    const a = await h.session();
    const teleop = await a.start('teleop');
    await a.close();
    await until(() => h!.app.sessionCount === 0);
    await h.clock.advance(10_000);
    expect(stateOf(h, teleop)).toBe('running');
  });

  it('RMK_KEEP_TASKS with patterns keeps the tasks of those tools only', async () => {
    h = teleopApp({ env: { RMK_KEEP_TASKS: 'jog' } });
    const a = await h.session();
    const teleop = await a.start('teleop');
    const jog = await a.start('jog');
    await a.close();
    await until(() => stateOf(h!, teleop) === 'cancelled');
    expect(stateOf(h, jog)).toBe('running');
  });

  it('the keepTasksOnSessionEnd option wins over the variable', async () => {
    h = teleopApp({ keepTasksOnSessionEnd: false, env: { RMK_KEEP_TASKS: '1' } });
    const a = await h.session();
    const teleop = await a.start('teleop');
    await a.close();
    await until(() => stateOf(h!, teleop) === 'cancelled');
  });

  it('refuses a cancelOnDisconnect that is not a boolean', () => {
    expect(() => disconnectPolicy(new Set(['a']), { all: false, patterns: [] }).cancels('a')).not.toThrow();
    @CapabilityServer({ name: 'bad', version: '0.0.1' })
    class Bad {
      @LongRunningTool({ description: 'x', cancelOnDisconnect: 'yes' as unknown as boolean })
      async spin(_args: LabelArgs): Promise<JsonObject> {
        return Promise.resolve({});
      }
    }
    expect(() => bootstrap(Bad, { env: {} })).toThrow(/cancelOnDisconnect must be true or false/);
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
    const owners = new TaskOwners(new TaskProjection(taskManager));
    owners.observe();
    const starter = new TaskStarter(taskManager, owners);
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
      { owners, taskManager, clock, logger },
      { cancels: () => true },
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

describe('TaskStarter origin and TaskOwners', () => {
  it('starts with the session, principal and tags as origin, seen on `started` before the body runs', async () => {
    const taskManager = new TaskManager({ serverName: 'owners' });
    const owners = new TaskOwners(new TaskProjection(taskManager));
    owners.observe();
    owners.bindSession('s1', { clientId: 'alice', token: 't', scopes: [] });
    const starter = new TaskStarter(taskManager, owners);
    const tag = Symbol('tag');
    const seen: string[] = [];
    const bodiesRan = new Set<string>();
    taskManager.onChange((change) => {
      if (change.kind !== 'started') return;
      const { sessionId, principal, tags } = change.origin ?? {};
      seen.push(
        `${sessionId}/${String(principal)}/${String(tags?.get(tag))}:${String(bodiesRan.has(sessionId!))}`,
      );
      expect(Object.isFrozen(change.origin)).toBe(true);
    });
    const releases: (() => void)[] = [];
    const request = (session: string) => ({
      definition: { name: 'spin', kind: 'long-running', preempt: false } as never,
      call: { session: { id: session }, extra: {} as never, tags: new Map([[tag, session]]) },
      triggers: undefined,
      estDurationS: undefined,
      body: () =>
        new Promise<Record<string, never>>((resolve) => {
          bodiesRan.add(session);
          releases.push(() => resolve({}));
        }),
    });
    const a = await starter.start(request('s1'));
    const b = await starter.start(request('s2'));
    expect(seen).toEqual(['s1/alice/s1:false', 's2/undefined/s2:false']);
    expect(owners.ownerOf(a.task_id)).toEqual({ sessionId: 's1', principal: 'alice' });
    expect(owners.ofTask(b.task_id)).toBeUndefined();
    expect(owners.runningOfSession('s1')).toEqual([a.task_id]);
    await until(() => releases.length === 2);
    for (const release of releases) release();
    await until(() => taskManager.runningCount === 0);
    // finished tasks leave the session's running list; their principal stays for get_task scoping
    expect(owners.runningOfSession('s1')).toEqual([]);
    expect(owners.ofTask(a.task_id)).toBe('alice');
    starter.stopIntake();
    await expect(starter.start(request('s3'))).rejects.toThrow(/shutting down/);
    await taskManager.aclose();
  });
});
