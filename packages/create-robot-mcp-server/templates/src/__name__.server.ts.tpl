import { IsInt, IsOptional, IsString, Max, MaxLength, Min } from 'class-validator';
import {
  CapabilityServer,
  JSONSchema,
  type JsonObject,
  LongRunningTool,
  type TaskContext,
  Tool,
  Trigger,
  type ToolCallContext,
} from '@robot-mcp-kit/server';

/**
 * Arguments of `{{lrTool}}`. Each property is a tool parameter: class-validator checks it before the
 * task starts, and @JSONSchema describes it to the LLM in the tool's input schema.
 */
export class {{lrDto}} {
  @JSONSchema({ description: 'How many steps to run (1 to 1000)' })
  @IsInt()
  @Min(1)
  @Max(1000)
  steps!: number;

  @JSONSchema({ description: 'Duration of one step in milliseconds (default 1000)' })
  @IsOptional()
  @IsInt()
  @Min(0)
  @Max(60000)
  step_ms?: number;
}

/** Arguments of `{{plainTool}}`. */
export class {{plainDto}} {
  @JSONSchema({ description: 'Optional note, echoed back in the answer' })
  @IsOptional()
  @IsString()
  @MaxLength(200)
  note?: string;
}

/**
 * {{description}}
 *
 * The decorators only record metadata; `runServer()` (src/main.ts) and `bootstrap()` (the tests)
 * read it and serve each tool over MCP, next to the kit's get_task, cancel_task and list_tasks.
 */
@CapabilityServer({
  name: '{{name}}',
  version: '0.1.0',
  description: {{descriptionLiteral}},
  instructions:
    '{{lrTool}} starts a task and returns its task_id at once; follow it with get_task and stop it with ' +
    'cancel_task. {{plainTool}} answers at once.',
})
export class {{className}} {
  /**
   * A long-running tool: the call returns the task's TaskInfo at once and this body runs in the
   * background. Each `ctx.progress(...)` is pushed as a `progress` event and evaluated against the
   * triggers the caller attached; the returned object is the `task_done` result.
   */
  @LongRunningTool({
    description:
      '{{lrTool}}: runs `steps` steps in the background and returns a task_id at once. Reports progress ' +
      '{step, percent, eta_s} after each step. Supports the trigger {"type": "step_reached", "step": N}. ' +
      'Replace this description with what the tool does on the robot.',
    estDurationS: (args: {{lrDto}}) => (args.steps * (args.step_ms ?? 1000)) / 1000,
{{lrActing}}
  })
  async {{lrMethod}}(args: {{lrDto}}, ctx: TaskContext): Promise<{ steps_done: number }> {
    const stepMs = args.step_ms ?? 1000;
    for (let step = 1; step <= args.steps; step += 1) {
      // Replace with the real work; ctx.signal aborts when the task is cancelled.
      await ctx.sleep(stepMs);
      await ctx.progress({
        step,
        percent: Math.round((100 * step) / args.steps),
        eta_s: ((args.steps - step) * stepMs) / 1000,
      });
    }
    return { steps_done: args.steps };
  }

  /**
   * A trigger type of this server: `{"type": "step_reached", "step": N}` fires a `trigger_fired`
   * event once a task has done N steps. `validate` runs when the task starts and names bad fields.
   */
  @Trigger('step_reached', {
    description: 'fires when the progress step >= step',
    validate: (trigger) =>
      Number.isInteger(trigger.step) && (trigger.step as number) >= 1
        ? []
        : [`step: expected an integer >= 1, got ${JSON.stringify(trigger.step)}`],
  })
  stepReached(trigger: JsonObject, progress: JsonObject): JsonObject | undefined {
    const { step } = progress;
    return typeof step === 'number' && typeof trigger.step === 'number' && step >= trigger.step ? { step } : undefined;
  }

  /** A plain tool: answers at once with what the method returns (an object becomes JSON). */
  @Tool({
    description: '{{plainTool}}: answers at once with the server status. Replace this with what the tool does.',
{{plainActing}}
  })
  {{plainMethod}}(args: {{plainDto}}, ctx: ToolCallContext): { server: string; status: string; note: string | null } {
    ctx.logger.debug('{{plainTool}} called', { note: args.note });
    return { server: '{{name}}', status: 'ready', note: args.note ?? null };
  }
}
