import {
  TaskManager,
  TriggerRegistry,
  TriggerValidationError,
  etaBelowTrigger,
  zoneEnteredTrigger,
  type JsonObject,
  type TaskBody,
  type TaskInfo,
  type Trigger,
  type TriggerEvaluator,
} from '@robot-mcp-kit/core';
import { MemoryLogger } from '@robot-mcp-kit/core/testing';
import { RecordingSink, finished } from './task-test.helpers.js';

function setup(triggers?: TriggerRegistry): {
  manager: TaskManager;
  sink: RecordingSink;
  logger: MemoryLogger;
} {
  const sink = new RecordingSink();
  const logger = new MemoryLogger();
  const manager = new TaskManager({ serverName: 'navigation', poster: sink, logger, triggers });
  return { manager, sink, logger };
}

function reporting(payloads: JsonObject[]): TaskBody {
  return async (ctx) => {
    for (const payload of payloads) await ctx.progress(payload);
    return {};
  };
}

async function run(manager: TaskManager, body: TaskBody, triggers: unknown[]): Promise<TaskInfo> {
  return finished(manager, manager.start('navigate_to', body, { triggers }).task_id);
}

describe('TaskManager triggers', () => {
  it('fires progress_above once, after the progress that crossed it', async () => {
    const { manager, sink } = setup();
    const trigger = { type: 'progress_above', percent: 50 };
    const info = await run(manager, reporting([{ percent: 10 }, { percent: 50 }, { percent: 60 }]), [
      trigger,
    ]);
    const events = sink.of(info.task_id);
    expect(events.map((e) => e.type)).toEqual([
      'progress',
      'progress',
      'trigger_fired',
      'progress',
      'task_done',
    ]);
    expect(events.map((e) => e.seq)).toEqual([1, 2, 3, 4, 5]);
    expect(JSON.stringify(events[2]!.payload)).toBe(
      '{"trigger":{"type":"progress_above","percent":50},"percent":50}',
    );
  });

  it('fires a repeat: true trigger on every matching progress', async () => {
    const { manager, sink } = setup();
    const trigger = { type: 'progress_above', percent: 50, repeat: true };
    const info = await run(manager, reporting([{ percent: 40 }, { percent: 60 }, { percent: 70 }]), [
      trigger,
    ]);
    const fired = sink.of(info.task_id).filter((e) => e.type === 'trigger_fired');
    expect(fired.map((e) => e.payload)).toEqual([
      { trigger, percent: 60 },
      { trigger, percent: 70 },
    ]);
  });

  it('treats two equal dicts as two triggers', async () => {
    const { manager, sink } = setup();
    const info = await run(manager, reporting([{ percent: 80 }, { percent: 90 }]), [
      { type: 'progress_above', percent: 50 },
      { type: 'progress_above', percent: 50 },
    ]);
    expect(sink.typesOf(info.task_id)).toEqual([
      'progress',
      'trigger_fired',
      'trigger_fired',
      'progress',
      'task_done',
    ]);
  });

  it('ignores unknown trigger types with one warning per task per type', async () => {
    const { manager, sink, logger } = setup();
    const triggers = [
      { type: 'door_opened', door: 4 },
      { type: 'door_opened', door: 5 },
      { type: 'smell_detected' },
      { type: 'progress_above', percent: 10 },
    ];
    const first = await run(manager, reporting([{ percent: 20 }, { percent: 30 }]), triggers);
    expect(sink.typesOf(first.task_id)).toEqual(['progress', 'trigger_fired', 'progress', 'task_done']);
    expect(logger.at('warn', 'unknown trigger type')).toHaveLength(2);
    expect(logger.at('warn', '"door_opened"')[0]?.meta.task_id).toBe(first.task_id);
    expect(logger.at('warn', '"door_opened"')[0]?.message).toContain('known: progress_above');

    const second = await run(manager, reporting([{ percent: 20 }]), triggers);
    expect(logger.at('warn', 'unknown trigger type')).toHaveLength(4);
    expect(logger.at('warn', '"door_opened"')[1]?.meta.task_id).toBe(second.task_id);
  });

  it('rejects a malformed known trigger at start, naming the field, starting nothing', () => {
    const { manager, sink } = setup(new TriggerRegistry([etaBelowTrigger]));
    let caught: unknown;
    try {
      manager.start('navigate_to', async () => ({}), {
        triggers: [
          { type: 'eta_below', seconds: 10 },
          { type: 'eta_below', seconds: 'soon' },
        ],
      });
    } catch (error) {
      caught = error;
    }
    expect(caught).toBeInstanceOf(TriggerValidationError);
    const error = caught as TriggerValidationError;
    expect(error.code).toBe('TRIGGER_INVALID');
    expect(error.issues).toEqual([
      { field: 'triggers[1].seconds', problems: ['expected a number >= 0, got a string ("soon")'] },
    ]);
    expect(error.message).toContain('triggers[1].seconds');
    expect(manager.list()).toEqual([]);
    expect(manager.runningCount).toBe(0);
    expect(sink.events).toEqual([]);
  });

  it('fires by hand at most once per trigger: by identity, by equality, or outside the list', async () => {
    const { manager, sink } = setup(new TriggerRegistry());
    const info = await run(
      manager,
      async (ctx) => {
        const [eta] = ctx.triggers;
        await ctx.fireTrigger(eta!, { eta_s: 9.4 });
        await ctx.fireTrigger(eta!, { eta_s: 8 });
        await ctx.fireTrigger({ seconds: 10, type: 'eta_below' }, { eta_s: 7 }); // equal to the 2nd entry
        await ctx.fireTrigger({ type: 'eta_below', seconds: 10 }, { eta_s: 6 }); // both fired now
        await ctx.fireTrigger({ type: 'zone_entered', zone: 'lab' }, { zone: 'lab' }); // not in the list
        await ctx.fireTrigger({ type: 'zone_entered', zone: 'lab' });
        await ctx.fireTrigger({ type: 'zone_entered', zone: 'lab', repeat: true });
        await ctx.fireTrigger({ type: 'zone_entered', zone: 'lab', repeat: true });
        return {};
      },
      [
        { type: 'eta_below', seconds: 10 },
        { type: 'eta_below', seconds: 10 },
      ],
    );
    const fired = sink.of(info.task_id).filter((e) => e.type === 'trigger_fired');
    expect(fired.map((e) => JSON.stringify(e.payload))).toEqual([
      '{"trigger":{"type":"eta_below","seconds":10},"eta_s":9.4}',
      '{"trigger":{"type":"eta_below","seconds":10},"eta_s":7}',
      '{"trigger":{"type":"zone_entered","zone":"lab"},"zone":"lab"}',
      '{"trigger":{"type":"zone_entered","zone":"lab","repeat":true}}',
      '{"trigger":{"type":"zone_entered","zone":"lab","repeat":true}}',
    ]);
  });

  it('lets a repeat trigger in the list fire by hand each time, and keeps the trigger key first', async () => {
    const { manager, sink } = setup();
    const info = await run(
      manager,
      async (ctx) => {
        await ctx.fireTrigger(ctx.triggers[0]!, { trigger: 'spoofed', n: 1 });
        await ctx.fireTrigger({ type: 'custom', repeat: true }, { n: 2 });
        return {};
      },
      [{ type: 'custom', repeat: true }],
    );
    const fired = sink.of(info.task_id).filter((e) => e.type === 'trigger_fired');
    expect(fired.map((e) => JSON.stringify(e.payload))).toEqual([
      '{"trigger":{"type":"custom","repeat":true},"n":1}',
      '{"trigger":{"type":"custom","repeat":true},"n":2}',
    ]);
  });

  it('does not fire by hand a trigger the evaluator already fired', async () => {
    const { manager, sink } = setup();
    const info = await run(
      manager,
      async (ctx) => {
        await ctx.progress({ percent: 75 });
        await ctx.fireTrigger(ctx.triggers[0]!, { percent: 76 });
        return {};
      },
      [{ type: 'progress_above', percent: 50 }],
    );
    expect(sink.typesOf(info.task_id)).toEqual(['progress', 'trigger_fired', 'task_done']);
  });

  it('rejects bad fireTrigger arguments, naming them', async () => {
    const { manager } = setup();
    const errors: string[] = [];
    await run(
      manager,
      async (ctx) => {
        for (const [trigger, extra] of [
          [{ seconds: 1 }, undefined],
          ['eta_below', undefined],
          [{ type: 'eta_below' }, [1]],
          [{ type: 'eta_below', n: 1n }, undefined],
        ] as const) {
          await ctx
            .fireTrigger(trigger as unknown as Trigger, extra as unknown as JsonObject)
            .catch((e: Error) => {
              errors.push(e.message);
            });
        }
        return {};
      },
      [],
    );
    expect(errors).toEqual([
      expect.stringMatching(/^trigger: expected a trigger object with a non-empty "type"/),
      expect.stringMatching(/^trigger: /),
      expect.stringMatching(/^extra: expected a plain JSON object .*got an array/),
      expect.stringMatching(/^trigger: .*not JSON-serializable/),
    ]);
  });

  it('contains an evaluator that throws or returns a non-object, and keeps evaluating', async () => {
    const throwing: TriggerEvaluator = {
      type: 'flaky',
      evaluate: () => {
        throw new Error('sensor offline');
      },
    };
    const wrong: TriggerEvaluator = { type: 'wrong', evaluate: () => true as unknown as JsonObject };
    const { manager, sink, logger } = setup(new TriggerRegistry([throwing, wrong, zoneEnteredTrigger]));
    const info = await run(manager, reporting([{ zone: 'lab' }]), [
      { type: 'flaky' },
      { type: 'wrong' },
      { type: 'zone_entered', zone: 'lab' },
    ]);
    expect(info.state).toBe('succeeded');
    expect(sink.typesOf(info.task_id)).toEqual(['progress', 'trigger_fired', 'task_done']);
    expect(logger.at('error', '"flaky" trigger evaluator threw')[0]?.meta.error).toBe('sensor offline');
    expect(logger.at('error', '"wrong" trigger evaluator must return')[0]?.message).toContain(
      'a boolean (true)',
    );
  });

  it('passes evaluators the trigger, the progress and a TaskInfo snapshot', async () => {
    const seen: [Trigger, JsonObject, TaskInfo][] = [];
    const spy: TriggerEvaluator = {
      type: 'spy',
      evaluate: (trigger, progress, task) => {
        seen.push([trigger, progress, task]);
        return undefined;
      },
    };
    const { manager } = setup(new TriggerRegistry([spy]));
    const info = await run(manager, reporting([{ step: 1 }]), [{ type: 'spy', x: 1 }]);
    expect(seen).toHaveLength(1);
    const [trigger, progress, task] = seen[0]!;
    expect(trigger).toEqual({ type: 'spy', x: 1 });
    expect(progress).toEqual({ step: 1 });
    expect(task.task_id).toBe(info.task_id);
    expect(task.state).toBe('running');
    expect(task.progress).toEqual({ step: 1 });
  });

  it('evaluates eta_below and zone_entered when registered', async () => {
    const { manager, sink } = setup(
      TriggerRegistry.withBuiltins().register(etaBelowTrigger).register(zoneEnteredTrigger),
    );
    const info = await run(
      manager,
      reporting([
        { eta_s: 22.4, zone: 'corridor' },
        { eta_s: 9.4, zone: 'corridor' },
        { eta_s: 3, zone: 'lab' },
      ]),
      [
        { type: 'eta_below', seconds: 10 },
        { type: 'zone_entered', zone: 'lab' },
      ],
    );
    const fired = sink.of(info.task_id).filter((e) => e.type === 'trigger_fired');
    expect(fired.map((e) => e.payload)).toEqual([
      { trigger: { type: 'eta_below', seconds: 10 }, eta_s: 9.4 },
      { trigger: { type: 'zone_entered', zone: 'lab' }, zone: 'lab' },
    ]);
  });

  it('exposes the triggers to the body as ctx.triggers', async () => {
    const { manager } = setup();
    let triggers: readonly Trigger[] = [];
    await run(
      manager,
      async (ctx) => {
        triggers = ctx.triggers;
        return {};
      },
      [{ type: 'progress_above', percent: 5 }],
    );
    expect(triggers).toEqual([{ type: 'progress_above', percent: 5 }]);
  });
});
