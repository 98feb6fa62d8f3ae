import {
  type DeliveryOutcome,
  EventPoster,
  type TaskEvent,
  TaskError,
  TaskManager,
} from '@robot-mcp-kit/core';
import { InMemoryEventTransport } from '@robot-mcp-kit/core/testing';
import { finished } from '../tasks/task-test.helpers.js';
import { makeEvent, until } from './test-helpers.js';

// docs/contract.md "Coalesced progress": the marker lives only on the posted copy of an event.
// A terminal event carries it too; TaskInfo (get_task) and the task's own events (what the event
// feed and tasks:// subscriptions see) keep the payload the task made.

const KEY = 'rvc_coalesced_seqs';

function heldTransport() {
  const transport = new InMemoryEventTransport();
  const waiting: (() => void)[] = [];
  let open = false;
  transport.setHandler(async (): Promise<DeliveryOutcome> => {
    if (!open) await new Promise<void>((resolve) => waiting.push(resolve));
    return { ok: true, status: 200 };
  });
  return {
    transport,
    held: () => waiting.length,
    release: () => {
      open = true;
      for (const resolve of waiting.splice(0)) resolve();
    },
  };
}

/** Every seq of a task's sent events, or named by their markers: once each, none both. */
function accountFor(sent: TaskEvent[]): { seqs: number[]; named: number[] } {
  const seqs = sent.map((e) => e.seq);
  const named = sent.flatMap((e) =>
    ((e.payload[KEY] as [number, number][] | undefined) ?? []).flatMap(([from, to]) =>
      Array.from({ length: to - from + 1 }, (_, i) => from + i),
    ),
  );
  return { seqs, named };
}

describe('EventPoster + TaskManager under overload: markers on terminal events', () => {
  it('names the coalesced progress on task_done / task_failed, never in TaskInfo or the task’s events', async () => {
    const { transport, held, release } = heldTransport();
    const poster = new EventPoster({ serverName: 'navigation', transport, lanes: 1, maxQueue: 2 });
    const manager = new TaskManager({ serverName: 'navigation', poster });
    const own: TaskEvent[] = [];
    manager.onChange((change) => {
      if (change.kind === 'event' && change.event) own.push(change.event);
    });
    poster.post(makeEvent('blocker', 1));
    await until(() => held() === 1, 'the blocker in flight');
    const done = manager.start('navigate_to', async (ctx) => {
      for (let p = 1; p <= 5; p += 1) await ctx.progress({ percent: p * 20 });
      return { arrived: true };
    });
    await finished(manager, done.task_id);
    const failed = manager.start('dock', async (ctx) => {
      for (let p = 1; p <= 4; p += 1) await ctx.progress({ percent: p * 25 });
      throw new TaskError('DOOR_CLOSED', 'The door is closed.', { suggestions: ['ask_reception'] });
    });
    await finished(manager, failed.task_id);
    release();
    expect(await poster.flush(15_000)).toBe(true);
    expect(poster.stats).toMatchObject({ dropped: 0 });
    expect(poster.stats.coalesced).toBeGreaterThan(0);

    const sent = transport.bodies as unknown as TaskEvent[];
    for (const id of [done.task_id, failed.task_id]) {
      const ofTask = sent.filter((e) => e.task_id === id);
      const terminal = ofTask.at(-1)!;
      expect(['task_done', 'task_failed']).toContain(terminal.type);
      expect(terminal.payload[KEY]).toBeDefined();
      const { seqs, named } = accountFor(ofTask);
      expect([...seqs, ...named].sort((a, b) => a - b)).toEqual(
        Array.from({ length: terminal.seq }, (_, i) => i + 1),
      );
    }
    const doneSent = sent.find((e) => e.type === 'task_done')!;
    expect(doneSent.payload.result).toEqual({ arrived: true });
    const failedSent = sent.find((e) => e.type === 'task_failed')!;
    expect(failedSent.payload).toMatchObject({ error_code: 'DOOR_CLOSED', recoverable: true });

    // get_task: TaskInfo never carries the marker.
    const doneInfo = manager.get(done.task_id)!.toJSON();
    expect(doneInfo.result).toEqual({ arrived: true });
    const failedInfo = manager.get(failed.task_id)!.toJSON();
    expect(failedInfo.failure).toEqual({
      error_code: 'DOOR_CLOSED',
      message: 'The door is closed.',
      recoverable: true,
      suggestions: ['ask_reception'],
    });
    expect(JSON.stringify([doneInfo, failedInfo])).not.toContain(KEY);
    // The task's own events (the event feed's source) keep the original payloads.
    expect(own.filter((e) => e.task_id !== 'blocker')).toHaveLength(5 + 1 + 4 + 1);
    expect(JSON.stringify(own)).not.toContain(KEY);
    await poster.aclose();
  });
});
