import { type CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { type Logger, RobotMcpKitError } from '@robot-mcp-kit/core';
import { type EstopLatch } from '@robot-mcp-kit/core/store';
import { scopeOf } from '../../auth/task-owners.js';
import { type Feature, type FeatureContext } from '../../runtime/feature.types.js';
import { defineFeature } from '../../runtime/feature.define.js';
import { type RegisteredTool, type ToolCall } from '../../tools/registered-tool.js';
import { toolErrorResult } from '../../tools/tool-results.js';

/** The app services this feature uses (all it receives). */
const NEEDS = ['stored', 'clock', 'logger', 'taskManager', 'owners'] as const;
type EstopServices = Pick<FeatureContext, (typeof NEEDS)[number]>;

/** An actuating tool called while the e-stop is latched: refused, nothing started. */
export class EstoppedError extends RobotMcpKitError {
  constructor(tool: string, latch: EstopLatch) {
    super(
      'ESTOPPED',
      `ESTOPPED: ${tool} was not started: the e-stop is latched (by ${latch.by} at ${latch.at}); ` +
        'an operator re-arms with the re-arm tool (it needs the re-arm scope) once the robot is safe',
    );
  }
}

/**
 * The e-stop latch of one server: in the shared task store when there is one (so every replica
 * reads the same latch before each actuating call), else in this process.
 */
export class EstopState {
  private local: EstopLatch | undefined;

  constructor(private readonly ctx: Pick<FeatureContext, 'stored' | 'clock' | 'logger'>) {}

  /** The latch, when latched. */
  async latched(): Promise<EstopLatch | undefined> {
    const store = this.ctx.stored?.shared;
    const latch = store?.readEstop ? await store.readEstop() : this.local;
    return latch?.latched ? latch : undefined;
  }

  async set(latched: boolean, principal: string | undefined): Promise<void> {
    const latch = { latched, by: scopeOf(principal), at: new Date(this.ctx.clock.now()).toISOString() };
    this.local = latch;
    const store = this.ctx.stored?.shared;
    if (store?.writeEstop) await store.writeEstop(latch);
    this.ctx.logger.warn(latched ? 'E-STOP latched' : 'e-stop released (re-armed)', { principal: latch.by });
  }
}

/** What the wrapped tools need. */
interface Latching {
  readonly state: EstopState;
  readonly ctx: EstopServices;
}

function refusal(error: EstoppedError): CallToolResult {
  return toolErrorResult(error.message, { error_code: error.code, message: error.message });
}

/**
 * An actuating tool that checks the latch before anything starts, and — with a shared store — once
 * more after its task started: a latch set meanwhile on any replica (its announcement may have
 * passed before the task existed) cancels the task at once.
 */
function guarded(tool: RegisteredTool, { state, ctx }: Latching): RegisteredTool {
  const check = async (): Promise<EstoppedError | undefined> => {
    const latch = await state.latched();
    return latch && new EstoppedError(tool.name, latch);
  };
  const recheck = async (taskId: unknown): Promise<void> => {
    // one process: the latch is set before anything awaits, and the e-stop then cancels what runs
    if (!ctx.stored?.shared?.readEstop || typeof taskId !== 'string' || !(await check())) return;
    ctx.logger.warn('E-STOP latched while a mover started: cancelling it', { task_id: taskId });
    await ctx.taskManager.cancel(taskId);
  };
  const { start, callAsTask } = tool;
  return {
    ...tool,
    async call(args, call) {
      const refused = await check();
      if (refused) return refusal(refused);
      const result = await tool.call(args, call);
      if (tool.longRunning && !result.isError) await recheck(result.structuredContent?.task_id);
      return result;
    },
    ...(start && {
      async start(args: unknown, call: ToolCall) {
        const refused = await check();
        if (refused) throw refused;
        const info = await start.call(tool, args, call);
        await recheck(info.task_id);
        return info;
      },
    }),
    ...(callAsTask && {
      async callAsTask(...params: Parameters<NonNullable<RegisteredTool['callAsTask']>>) {
        const refused = await check();
        if (refused) return refusal(refused) as never;
        return callAsTask.apply(tool, params);
      },
    }),
  };
}

/**
 * The e-stop tool: latches first (every replica; with a shared store the latch is also announced
 * to every replica, which cancels its own movers), runs its body, then cancels this replica's
 * actuating tasks still running.
 */
function latching(
  tool: RegisteredTool,
  actuating: ReadonlySet<string>,
  { state, ctx }: Latching,
): RegisteredTool {
  return {
    ...tool,
    async call(args, call) {
      await state.set(true, ctx.owners.ofSession(call.session.id));
      try {
        return await tool.call(args, call);
      } finally {
        await cancelActuating(ctx, actuating, ctx.logger); // whatever its body left running
      }
    },
  };
}

/** The re-arm tool: runs its body, then releases the latch (a body that fails keeps it latched). */
function rearming(tool: RegisteredTool, { state, ctx }: Latching): RegisteredTool {
  return {
    ...tool,
    async call(args, call) {
      const result = await tool.call(args, call);
      if (!result.isError) await state.set(false, ctx.owners.ofSession(call.session.id));
      return result;
    },
  };
}

async function cancelActuating(
  ctx: Pick<FeatureContext, 'taskManager'>,
  actuating: ReadonlySet<string>,
  logger: Logger,
): Promise<void> {
  const running = ctx.taskManager.list(['running']).filter((task) => actuating.has(task.tool));
  await Promise.all(running.map((task) => ctx.taskManager.cancel(task.task_id)));
  if (running.length > 0)
    logger.warn('E-STOP cancelled running tasks', { task_ids: running.map((t) => t.task_id) });
}

/**
 * The latching e-stop: a tool marked `estop: true` latches it (any valid token may call it; it needs
 * no confirmation), then runs its body, then cancels this replica's actuating tasks still running; and until a tool marked `rearm: true` releases it every actuating tool answers
 * `ESTOPPED` and starts nothing, on every replica sharing the task store.
 */
export function estopFeature(_options: object = {}): Feature {
  return defineFeature({
    name: 'estop',
    needs: NEEDS,
    setup(ctx) {
      const latching$ = { state: new EstopState(ctx), ctx };
      return {
        filterTools(tools) {
          if (!tools.some((t) => t.safety === 'estop')) return [...tools];
          const actuating = new Set(tools.filter((t) => t.actuates).map((t) => t.name));
          // a latch on any replica sharing the store stops this replica's movers too
          ctx.stored?.onEstop((latch) => {
            ctx.logger.warn("E-STOP latched on a replica: cancelling this replica's movers", {
              principal: latch.by,
            });
            void cancelActuating(ctx, actuating, ctx.logger);
          });
          return tools.map((tool) => {
            if (tool.safety === 'estop') return latching(tool, actuating, latching$);
            if (tool.safety === 'rearm') return rearming(tool, latching$);
            return tool.actuates ? guarded(tool, latching$) : tool;
          });
        },
      };
    },
  });
}
