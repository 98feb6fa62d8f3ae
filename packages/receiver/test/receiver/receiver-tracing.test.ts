import { afterAll, afterEach, describe, expect, it } from '@jest/globals';
import { SpanKind, SpanStatusCode, trace } from '@opentelemetry/api';
import { EventPoster, TaskManager, type TaskEvent } from '@robot-mcp-kit/core';
import { HttpEventTransport } from '@robot-mcp-kit/core/transport';
import { KIT_ATTRIBUTES } from '@robot-mcp-kit/core/telemetry';
import { createEventReceiver } from '@robot-mcp-kit/receiver';
import { TestTelemetry } from '../../../../test/support/otel.js';
import { until } from '../../../../test/support/until.js';
import { type Running, SECRET, listen } from '../receiver-test.helpers.js';

const otel = TestTelemetry.register();
const servers: Running[] = [];
afterEach(async () => {
  for (const s of servers.splice(0)) await s.close();
});
afterAll(() => otel.disable());

describe('the receiver continues the poster trace', () => {
  it('its process span is the child of the delivery span, active while onEvent runs', async () => {
    const seen: { event: TaskEvent; traceId?: string; spanId?: string }[] = [];
    let refuseFirst = true;
    const receiver = createEventReceiver({
      secrets: { sleeper: SECRET },
      onEvent: (event) => {
        const active = trace.getActiveSpan()?.spanContext();
        seen.push({ event, traceId: active?.traceId, spanId: active?.spanId });
        if (refuseFirst) {
          refuseFirst = false;
          throw new Error('app busy');
        }
      },
    });
    const server = await listen(receiver.handler);
    servers.push(server);
    const transport = new HttpEventTransport({ url: server.url, secret: SECRET, serverName: 'sleeper' });
    const poster = new EventPoster({
      serverName: 'sleeper',
      transport,
      retryDelaysMs: [20],
      retryEveryMs: 20,
    });
    const manager = new TaskManager({ serverName: 'sleeper', poster });
    const info = manager.start('sleep', async () => ({ slept: true }));
    await manager.whenStopped(info.task_id);
    expect(await poster.flush(20_000)).toBe(true);
    await until(() => otel.finished('process task_done').length === 2, 'two process spans');

    const sends = otel.finished('send task_done');
    const processes = otel.finished('process task_done');
    const task = otel.finished('task sleep')[0]!;
    expect(sends).toHaveLength(2);
    for (const [i, span] of processes.entries()) {
      expect(span.kind).toBe(SpanKind.SERVER);
      expect(span.spanContext().traceId).toBe(task.spanContext().traceId);
      expect(span.parentSpanContext?.spanId).toBe(sends[i]!.spanContext().spanId);
      expect(span.attributes).toMatchObject({
        [KIT_ATTRIBUTES.taskId]: info.task_id,
        [KIT_ATTRIBUTES.eventType]: 'task_done',
        'http.response.status_code': i === 0 ? 500 : 200,
      });
      // the app's handler ran inside the receiver's span
      expect(seen[i]).toMatchObject({
        traceId: task.spanContext().traceId,
        spanId: span.spanContext().spanId,
      });
    }
    expect(processes[0]!.status.code).toBe(SpanStatusCode.ERROR);
    await manager.aclose();
  });
});
