import {
  etaBelowTrigger,
  EventPoster,
  type JsonObject,
  progressAboveTrigger,
  type TaskContext,
  TaskManager,
  TriggerRegistry,
  zoneEnteredTrigger,
} from '@robot-mcp-kit/core';
import { AckEventTransport } from '../fixtures/ack.transport.js';
import { interleave, type BenchSide } from '../harness/ab-runner.js';
import { BenchCheckError, type BenchContext, sized } from '../harness/bench-context.js';
import { type BenchRow, makeRow } from '../harness/bench-row.js';
import { microsSince } from '../harness/stats.js';

/** Ten triggers of the three built-in types that never fire, so all ten are evaluated every time. */
const TEN_TRIGGERS = [
  { type: 'progress_above', percent: 100 },
  { type: 'progress_above', percent: 99.5 },
  { type: 'progress_above', percent: 99.9 },
  { type: 'eta_below', seconds: 0 },
  { type: 'eta_below', seconds: 0.5 },
  { type: 'eta_below', seconds: 0.25 },
  { type: 'zone_entered', zone: 'kitchen' },
  { type: 'zone_entered', zone: 'dock' },
  { type: 'zone_entered', zone: 'lab' },
  { type: 'zone_entered', zone: 'garage' },
];

/** Per-progress cost with ten triggers against the same progress with none. */
export async function triggerBenchmarks(ctx: BenchContext): Promise<BenchRow[]> {
  ctx.log('trigger evaluation per progress event');
  const progressPerTask = sized(ctx, 200, 1000);
  const plan = sized(ctx, { warmupRounds: 1, rounds: 4 }, { warmupRounds: 3, rounds: 24 });
  const transport = new AckEventTransport();
  const poster = new EventPoster({ serverName: 'bench', transport, maxQueue: 100_000 });
  const manager = new TaskManager({
    serverName: 'bench',
    poster,
    triggers: new TriggerRegistry([progressAboveTrigger, etaBelowTrigger, zoneEnteredTrigger]),
  });

  const side = (name: string, triggers: readonly JsonObject[]): BenchSide => ({
    name,
    async round() {
      const samples: number[] = [];
      let fired = 0;
      const body = async (task: TaskContext): Promise<JsonObject> => {
        for (let i = 0; i < progressPerTask; i += 1) {
          const payload = { percent: (i * 90) / progressPerTask, eta_s: 60 - i / 100, zone: 'hall' };
          const start = process.hrtime.bigint();
          await task.progress(payload);
          samples.push(microsSince(start));
        }
        return { done: true };
      };
      const unsubscribe = manager.onChange((change) => {
        if (change.event?.type === 'trigger_fired') fired += 1;
      });
      const info = manager.start('patrol', body, { triggers });
      await waitFinished(manager, info.task_id);
      unsubscribe();
      if (fired > 0) throw new BenchCheckError(`${fired} triggers fired; the scenario expects none`);
      if (!(await poster.flush(10_000))) throw new BenchCheckError('events did not flush');
      return samples;
    },
  });

  const s = await interleave(side('10 triggers', TEN_TRIGGERS), side('no triggers', []), plan);
  await manager.aclose();
  return [
    makeRow(
      {
        id: 'triggers',
        scenario: 'progress event with 10 triggers evaluated',
        baseline: 'progress with no triggers',
        unit: 'us',
        target: { op: '<=', value: 1.5 },
      },
      s.subject,
      s.baseline,
      s.cpu,
    ),
  ];
}

async function waitFinished(manager: TaskManager, taskId: string): Promise<void> {
  for (let i = 0; i < 10_000; i += 1) {
    const info = manager.get(taskId);
    if (!info) throw new BenchCheckError(`task ${taskId} vanished`);
    if (info.state !== 'running') {
      if (info.state !== 'succeeded') throw new BenchCheckError(`task ${taskId} ended ${info.state}`);
      return;
    }
    await new Promise<void>((resolve) => setImmediate(resolve));
  }
  throw new BenchCheckError(`task ${taskId} did not finish`);
}
