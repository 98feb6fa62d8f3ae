import { afterAll, describe, expect, it } from '@jest/globals';
import { SpanKind, SpanStatusCode, context, trace } from '@opentelemetry/api';
import { TaskError, TaskManager, type TaskBody, type TaskInfo } from '@robot-mcp-kit/core';
import { KIT_ATTRIBUTES, KIT_METRICS, TASK_SPAN_EVENTS } from '@robot-mcp-kit/core/telemetry';
import { TestTelemetry } from '../../../../test/support/otel.js';
import { until } from '../../../../test/support/until.js';

const otel = TestTelemetry.register();
afterAll(() => otel.disable());

/** Starts a task while a `tools/call` span (the server's) is active; returns both. */
function startUnderCall(manager: TaskManager, tool: string, body: TaskBody, triggers?: unknown[]) {
  const call = trace.getTracer('test').startSpan(`tools/call ${tool}`, { kind: SpanKind.SERVER });
  const info: TaskInfo = context.with(trace.setSpan(context.active(), call), () =>
    manager.start(tool, body, triggers ? { triggers: triggers as never } : {}),
  );
  call.end();
  return { call, info };
}

async function taskSpan(taskId: string) {
  await until(
    () => otel.finished().find((s) => s.attributes[KIT_ATTRIBUTES.taskId] === taskId),
    `the span of task ${taskId}`,
  );
  return otel.finished().find((s) => s.attributes[KIT_ATTRIBUTES.taskId] === taskId)!;
}

describe('task spans', () => {
  it('a task is a root span linked to the call that started it, with progress and trigger events, ending OK', async () => {
    const manager = new TaskManager({ serverName: 'navigation', replicaId: 'pod-1' });
    const { call, info } = startUnderCall(
      manager,
      'navigate_to',
      async (ctx) => {
        await ctx.progress({ percent: 30 });
        await ctx.progress({ percent: 60 });
        return { arrived: true };
      },
      [{ type: 'progress_above', percent: 50 }],
    );
    const span = await taskSpan(info.task_id);

    expect(span.name).toBe('task navigate_to');
    expect(span.kind).toBe(SpanKind.INTERNAL);
    expect(span.parentSpanContext).toBeUndefined();
    expect(span.spanContext().traceId).not.toBe(call.spanContext().traceId);
    expect(span.links.map((l) => l.context.spanId)).toEqual([call.spanContext().spanId]);
    expect(span.attributes).toMatchObject({
      'gen_ai.tool.name': 'navigate_to',
      [KIT_ATTRIBUTES.taskId]: info.task_id,
      [KIT_ATTRIBUTES.taskState]: 'succeeded',
      [KIT_ATTRIBUTES.replicaId]: 'pod-1',
    });
    expect(span.events.map((e) => e.name)).toEqual([
      TASK_SPAN_EVENTS.progress,
      TASK_SPAN_EVENTS.progress,
      TASK_SPAN_EVENTS.triggerFired,
    ]);
    expect(span.events[1]?.attributes).toMatchObject({ [KIT_ATTRIBUTES.progressPercent]: 60 });
    expect(span.events[2]?.attributes).toMatchObject({ [KIT_ATTRIBUTES.triggerType]: 'progress_above' });
    expect(span.status.code).toBe(SpanStatusCode.OK);
    expect(manager.traceContextOf(info.task_id)).toEqual(span.spanContext());
    expect(manager.traceContextOf('nav-000000')).toBeUndefined();
    await manager.aclose();
  });

  it('a failed task ends with ERROR and error.type = its failure code', async () => {
    const manager = new TaskManager({ serverName: 'navigation' });
    const { info } = startUnderCall(manager, 'dock', async () => {
      throw new TaskError('DOCK_BLOCKED', 'the dock is blocked');
    });
    const span = await taskSpan(info.task_id);
    expect(span.status.code).toBe(SpanStatusCode.ERROR);
    expect(span.attributes).toMatchObject({
      'error.type': 'DOCK_BLOCKED',
      [KIT_ATTRIBUTES.taskState]: 'failed',
    });
    expect(span.attributes[KIT_ATTRIBUTES.replicaId]).toBeUndefined();
    await manager.aclose();
  });

  it('a cancelled task has a cancel_requested event and ends UNSET with state cancelled', async () => {
    const manager = new TaskManager({ serverName: 'navigation' });
    const { info } = startUnderCall(manager, 'patrol', (ctx) => ctx.sleep(60_000).then(() => ({})));
    await manager.cancel(info.task_id, { settle: true });
    const span = await taskSpan(info.task_id);
    expect(span.events.map((e) => e.name)).toEqual([TASK_SPAN_EVENTS.cancelRequested]);
    expect(span.status.code).toBe(SpanStatusCode.UNSET);
    expect(span.attributes[KIT_ATTRIBUTES.taskState]).toBe('cancelled');
    await manager.aclose();
  });

  it('counts running tasks and records task durations by tool and final state', async () => {
    const running = () => otel.sum(KIT_METRICS.tasksRunning.name, { 'gen_ai.tool.name': 'wait_a_bit' });
    const before = await running();
    const manager = new TaskManager({ serverName: 'navigation' });
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    const a = manager.start('wait_a_bit', async () => {
      await gate;
      return {};
    });
    const b = manager.start('wait_a_bit', async () => {
      throw new TaskError('NOPE', 'no');
    });
    await manager.whenStopped(b.task_id);
    expect(await running()).toBe(before + 1);
    release();
    await manager.whenStopped(a.task_id);
    expect(await running()).toBe(before);
    const duration = KIT_METRICS.taskDuration.name;
    const tool = { 'gen_ai.tool.name': 'wait_a_bit' };
    expect(await otel.histogramCount(duration, { ...tool, [KIT_ATTRIBUTES.taskState]: 'succeeded' })).toBe(1);
    expect(await otel.histogramCount(duration, { ...tool, [KIT_ATTRIBUTES.taskState]: 'failed' })).toBe(1);
    expect((await otel.metric(duration))?.descriptor.unit).toBe('s');
    await manager.aclose();
  });
});
