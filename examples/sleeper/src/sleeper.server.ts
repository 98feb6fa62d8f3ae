import { IsBoolean, IsNumber, IsOptional, IsPositive, Max } from 'class-validator';
import { JSONSchema } from '@robot-mcp-kit/server';
import { TaskError, type TaskContext, CapabilityServer, LongRunningTool } from '@robot-mcp-kit/server';

/** Arguments of `sleep_task`. */
export class SleepArgs {
  @JSONSchema({ description: 'How long to sleep, in seconds (> 0)' })
  @IsNumber({ allowNaN: false, allowInfinity: false })
  @IsPositive()
  @Max(86_400)
  duration_s!: number;

  @JSONSchema({ description: 'Fail at the end with error_code FAKE_FAILURE' })
  @IsOptional()
  @IsBoolean()
  fail?: boolean;
}

const round = (value: number): number => Math.round(value * 100) / 100;

/**
 * The spec's §5 sleeper: a fake long-running task. Progress once per second; eta_below and
 * progress_above triggers fire through the built-in plugins — the body only reports progress.
 */
@CapabilityServer({
  name: 'sleeper',
  version: '0.1.0',
  title: 'Sleeper',
  description: 'A fake long-running task for trying the async task contract',
  instructions:
    'sleep_task starts a task and returns its task_id at once; follow it with get_task, stop it with cancel_task.',
})
export class SleeperServer {
  @LongRunningTool({
    description:
      'Start a fake long-running task that sleeps for duration_s seconds, reporting progress {eta_s, percent} ' +
      'every second. Supports triggers {"type": "eta_below", "seconds": N} and {"type": "progress_above", "percent": P}. ' +
      'Returns a task_id immediately.',
    estDurationS: (args: SleepArgs) => args.duration_s,
    annotations: {
      title: 'Sleep (a fake long task)',
      readOnlyHint: false,
      destructiveHint: false,
      idempotentHint: false,
      openWorldHint: false,
    },
  })
  async sleepTask(args: SleepArgs, ctx: TaskContext): Promise<{ slept_s: number }> {
    const total = args.duration_s;
    let elapsed = 0;
    while (elapsed < total) {
      const step = Math.min(1, total - elapsed);
      await ctx.sleep(step * 1000);
      elapsed += step;
      await ctx.progress({ eta_s: round(total - elapsed), percent: round((100 * elapsed) / total) });
    }
    if (args.fail) {
      throw new TaskError('FAKE_FAILURE', 'The sleeper was asked to fail.', {
        suggestions: ['retry_without_fail'],
      });
    }
    return { slept_s: total };
  }
}
