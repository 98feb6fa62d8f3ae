import { describe, expect, it } from '@jest/globals';
import fc from 'fast-check';
import {
  type EventType,
  TASK_STATES,
  type TaskContext,
  TaskError,
  type TaskEvent,
  TaskManager,
  type TaskState,
  type Trigger,
} from '@robot-mcp-kit/core';
import { ManualClock, MemoryLogger } from '@robot-mcp-kit/core/testing';
import { newTaskId } from '../../packages/core/src/tasks/task-id.js';
import { turns } from './helpers/drive.js';

// Random interleavings of start, progress, emit, fireTrigger, sleep, finish, fail, cancel and
// clock advances against a model. Each task body is a puppet that runs the commands it is sent.

type Command =
  | { kind: 'progress'; percent: number }
  | { kind: 'emit' }
  | { kind: 'fire'; index: number }
  | { kind: 'fireAdhoc'; n: number }
  | { kind: 'sleep'; ms: number }
  | { kind: 'finish' }
  | { kind: 'fail'; how: 'task_error' | 'error' | 'string' | 'undefined' | 'object' };

type Op =
  | { kind: 'start'; cooperative: boolean; triggers: number[] }
  | { kind: 'send'; task: number; command: Command }
  | { kind: 'cancel'; task: number }
  | { kind: 'advance'; ms: number };

/** The trigger menu a started task picks from (by index). */
const TRIGGER_MENU: Trigger[] = [
  { type: 'progress_above', percent: 50 },
  { type: 'progress_above', percent: 90, repeat: true },
  { type: 'beacon' },
  { type: 'beacon', repeat: true },
  { type: 'progress_above', percent: 0 },
];

/** What the model expects of one task. */
interface ModelTask {
  state: TaskState;
  readonly triggers: Trigger[];
  readonly fired: boolean[];
  readonly adhoc: Set<number>;
  readonly events: EventType[];
  failure?: string;
}

/** A mailbox the test writes commands to and the body reads from. */
class Mailbox {
  private readonly queue: Command[] = [];
  private waiter: ((c: Command) => void) | undefined;
  push(command: Command): void {
    const waiter = this.waiter;
    this.waiter = undefined;
    if (waiter) waiter(command);
    else this.queue.push(command);
  }
  next(signal?: AbortSignal): Promise<Command> {
    const queued = this.queue.shift();
    if (queued) return Promise.resolve(queued);
    return new Promise((resolve, reject) => {
      if (signal?.aborted) return reject(signal.reason as Error);
      signal?.addEventListener('abort', () => reject(signal.reason as Error), { once: true });
      this.waiter = resolve;
    });
  }
}

const FAILURES = {
  task_error: () => new TaskError('PUPPET_FAILED', 'The puppet was told to fail.'),
  error: () => new Error('boom'),
  string: () => 'a thrown string',
  undefined: () => undefined,
  object: () => ({ reason: 'an object' }),
} as const;
const FAILURE_CODE = {
  task_error: 'PUPPET_FAILED',
  error: 'INTERNAL',
  string: 'INTERNAL',
  undefined: 'INTERNAL',
  object: 'INTERNAL',
};

/** Applies a command to the model when the body runs it (so sleeps and cancels interleave right). */
function modelApply(task: ModelTask, command: Command): void {
  if (task.state !== 'running') return;
  switch (command.kind) {
    case 'progress':
      task.events.push('progress');
      task.triggers.forEach((t, i) => {
        if (t.type !== 'progress_above' || command.percent < (t.percent as number)) return;
        if (task.fired[i] && t.repeat !== true) return;
        task.fired[i] = true;
        task.events.push('trigger_fired');
      });
      return;
    case 'emit':
      task.events.push('watch_event');
      return;
    case 'fire': {
      const i = command.index % Math.max(1, task.triggers.length);
      const t = task.triggers[i];
      if (!t || (task.fired[i] && t.repeat !== true)) return;
      task.fired[i] = true;
      task.events.push('trigger_fired');
      return;
    }
    case 'fireAdhoc':
      if (task.adhoc.has(command.n)) return;
      task.adhoc.add(command.n);
      task.events.push('trigger_fired');
      return;
    case 'sleep':
      return;
    case 'finish':
      task.state = 'succeeded';
      task.events.push('task_done');
      return;
    case 'fail':
      task.state = 'failed';
      task.failure = FAILURE_CODE[command.how];
      task.events.push('task_failed');
      return;
  }
}

function puppet(mailbox: Mailbox, model: ModelTask, cooperative: boolean) {
  return async (ctx: TaskContext) => {
    for (;;) {
      const command = await mailbox.next(cooperative ? ctx.signal : undefined);
      if (command.kind === 'sleep') {
        try {
          await ctx.sleep(command.ms);
        } catch (error) {
          if (cooperative) throw error;
        }
        continue;
      }
      modelApply(model, command);
      switch (command.kind) {
        case 'progress':
          await ctx.progress({ percent: command.percent });
          break;
        case 'emit':
          await ctx.emit({ seen: 'cup' });
          break;
        case 'fire': {
          const trigger = ctx.triggers[command.index % Math.max(1, ctx.triggers.length)];
          if (trigger) await ctx.fireTrigger(trigger, { by: 'hand' });
          break;
        }
        case 'fireAdhoc':
          await ctx.fireTrigger({ type: 'adhoc', n: command.n });
          break;
        case 'finish':
          return { done: true };
        case 'fail':
          throw FAILURES[command.how]();
      }
    }
  };
}

/** Commands; `endWeight` is how likely a command ends the task (finish or fail). */
const commands = (endWeight: number): fc.Arbitrary<Command> =>
  fc.oneof(
    {
      weight: 5,
      arbitrary: fc.record({
        kind: fc.constant('progress' as const),
        percent: fc.integer({ min: 0, max: 100 }),
      }),
    },
    { weight: 2, arbitrary: fc.record({ kind: fc.constant('emit' as const) }) },
    { weight: 2, arbitrary: fc.record({ kind: fc.constant('fire' as const), index: fc.nat(4) }) },
    { weight: 1, arbitrary: fc.record({ kind: fc.constant('fireAdhoc' as const), n: fc.nat(2) }) },
    {
      weight: 2,
      arbitrary: fc.record({ kind: fc.constant('sleep' as const), ms: fc.constantFrom(100, 1000, 5000) }),
    },
    { weight: endWeight, arbitrary: fc.record({ kind: fc.constant('finish' as const) }) },
    {
      weight: endWeight,
      arbitrary: fc.record({
        kind: fc.constant('fail' as const),
        how: fc.constantFrom(
          'task_error' as const,
          'error' as const,
          'string' as const,
          'undefined' as const,
          'object' as const,
        ),
      }),
    },
  );
const commandArb = commands(1);

const opArb: fc.Arbitrary<Op> = fc.oneof(
  {
    weight: 2,
    arbitrary: fc.record({
      kind: fc.constant('start' as const),
      cooperative: fc.boolean(),
      triggers: fc.array(fc.nat(TRIGGER_MENU.length - 1), { maxLength: 3 }),
    }),
  },
  {
    weight: 8,
    arbitrary: fc.record({ kind: fc.constant('send' as const), task: fc.nat(), command: commandArb }),
  },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('cancel' as const), task: fc.nat() }) },
  {
    weight: 2,
    arbitrary: fc.record({ kind: fc.constant('advance' as const), ms: fc.constantFrom(0, 100, 1000, 5000) }),
  },
);

const TERMINAL_EVENTS: readonly EventType[] = ['task_done', 'task_failed'];

async function runScenario(ops: readonly Op[]): Promise<void> {
  const clock = new ManualClock();
  const events: TaskEvent[] = [];
  const manager = new TaskManager({
    serverName: 'puppet',
    poster: { post: (e) => void events.push(e) },
    clock,
    logger: new MemoryLogger(),
    cancelGraceMs: 2000,
  });
  const ids: string[] = [];
  const models = new Map<string, ModelTask>();
  const mailboxes = new Map<string, Mailbox>();
  const finishedNotices = new Map<string, number>();
  const seenTerminal = new Map<string, TaskState>();
  const eventsAfterEnd: string[] = [];
  const cancels: Promise<unknown>[] = [];
  manager.onChange((change) => {
    const id = change.task.task_id;
    if (change.kind === 'finished') finishedNotices.set(id, (finishedNotices.get(id) ?? 0) + 1);
    if (change.kind === 'event' && seenTerminal.has(id)) eventsAfterEnd.push(`${id} ${change.event!.type}`);
  });

  const checkInvariants = (): void => {
    for (const id of ids) {
      const info = manager.get(id)!;
      expect(TASK_STATES).toContain(info.state);
      const before = seenTerminal.get(id);
      if (before !== undefined) expect({ id, state: info.state }).toEqual({ id, state: before });
      else if (info.state !== 'running') seenTerminal.set(id, info.state);
    }
  };

  for (const op of ops) {
    switch (op.kind) {
      case 'start': {
        const triggers = op.triggers.map((i) => TRIGGER_MENU[i]!);
        const mailbox = new Mailbox();
        const model: ModelTask = {
          state: 'running',
          triggers,
          fired: triggers.map(() => false),
          adhoc: new Set(),
          events: [],
        };
        const info = manager.start('puppet', puppet(mailbox, model, op.cooperative), { triggers });
        expect(info.state).toBe('running');
        ids.push(info.task_id);
        models.set(info.task_id, model);
        mailboxes.set(info.task_id, mailbox);
        break;
      }
      case 'send':
        if (ids.length > 0) mailboxes.get(ids[op.task % ids.length]!)!.push(op.command);
        break;
      case 'cancel': {
        if (ids.length === 0) break;
        const id = ids[op.task % ids.length]!;
        const model = models.get(id)!;
        if (model.state === 'running') model.state = 'cancelled';
        cancels.push(manager.cancel(id));
        // cancel() marks the task at once, before it waits for the body.
        expect(manager.get(id)!.state).toBe(model.state);
        break;
      }
      case 'advance':
        await clock.advance(op.ms);
        break;
    }
    await turns(3);
    checkInvariants();
  }

  // Cancel what still runs and let stubborn bodies use up their grace.
  for (const id of ids) {
    const model = models.get(id)!;
    if (model.state === 'running') model.state = 'cancelled';
  }
  const closing = manager.aclose();
  await clock.advance(5000);
  await Promise.all([closing, ...cancels]);
  checkInvariants();
  expect(manager.runningCount).toBe(0);
  expect(eventsAfterEnd).toEqual([]);

  for (const id of ids) {
    const model = models.get(id)!;
    const own = events.filter((e) => e.task_id === id);
    const info = manager.get(id)!;
    expect({ id, state: info.state }).toEqual({ id, state: model.state });
    expect({ id, types: own.map((e) => e.type) }).toEqual({ id, types: model.events });
    expect(own.map((e) => e.seq)).toEqual(own.map((_, i) => i + 1));
    const terminal = own.filter((e) => TERMINAL_EVENTS.includes(e.type));
    expect(terminal.length).toBeLessThanOrEqual(1);
    if (terminal.length === 1) expect(own[own.length - 1]).toBe(terminal[0]);
    if (info.state === 'cancelled') expect(terminal).toEqual([]);
    if (info.state === 'succeeded') expect(info.result).toEqual({ done: true });
    if (info.state === 'failed') expect(info.failure?.error_code).toBe(model.failure);
    expect(finishedNotices.get(id)).toBe(1);
  }
}

describe('TaskManager state machine (property-based)', () => {
  it('keeps states, seq and terminal events valid under random interleavings', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(opArb, { minLength: 1, maxLength: 40 }), (ops) => runScenario(ops)),
      { numRuns: 200 },
    );
  });

  it('starts with a task and sends it many commands (long single-task runs)', async () => {
    const single = fc.array(
      fc.oneof(
        { weight: 12, arbitrary: commands(0).map((command): Op => ({ kind: 'send', task: 0, command })) },
        { weight: 1, arbitrary: commands(1).map((command): Op => ({ kind: 'send', task: 0, command })) },
        { weight: 1, arbitrary: fc.constant<Op>({ kind: 'cancel', task: 0 }) },
        {
          weight: 2,
          arbitrary: fc.constantFrom<Op>({ kind: 'advance', ms: 1000 }, { kind: 'advance', ms: 5000 }),
        },
      ),
      { maxLength: 60 },
    );
    await fc.assert(
      fc.asyncProperty(
        fc.boolean(),
        fc.array(fc.nat(4), { maxLength: 4 }),
        single,
        (cooperative, triggers, ops) => runScenario([{ kind: 'start', cooperative, triggers }, ...ops]),
      ),
      { numRuns: 150 },
    );
  });

  it('never reuses a task id within a process (200,000 tasks; random ids would collide ~1,200 times)', () => {
    const seen = new Set<string>();
    for (let i = 0; i < 200_000; i += 1) seen.add(newTaskId('soak', () => false));
    expect(seen.size).toBe(200_000);
    for (const id of [...seen].slice(0, 50)) expect(id).toMatch(/^soak-[0-9a-f]{6}$/);
  });

  it('the fake clock refuses a step that would never end or turn time back', async () => {
    const clock = new ManualClock();
    clock.setTimeout(() => clock.setTimeout(() => undefined, 0), 0);
    await expect(clock.advance(Number.NaN)).rejects.toThrow(/ms: expected a finite number >= 0/);
    await expect(clock.advance(-1)).rejects.toThrow(/got -1/);
    expect(clock.pending).toBe(1);
  });
});
