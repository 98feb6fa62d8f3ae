import { randomBytes } from 'node:crypto';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { z } from 'zod';
import { PATROL_PROGRESS_EVENTS } from '../fixtures/fleet.server.js';
import { type ScaleResult } from './concurrent-tasks.child.js';
import { reportToParent, scaleChildArgs, startPatrols } from '../harness/scale-child.js';

/** One event of the floor's background loops, as its in-process sink sees it. */
interface FloorEvent {
  readonly task_id: string;
  readonly seq: number;
  readonly type: 'progress' | 'task_done';
  readonly payload: Record<string, unknown>;
}

const mb = (bytes: number) => bytes / (1024 * 1024);

/**
 * A hand-written McpServer whose `patrol` tool starts a background loop (10 steps on setTimeout,
 * one event each to `sink`, then a done event) and answers at once with the task's id.
 */
function floorServer(sink: (event: FloorEvent) => void): { mcp: McpServer; running: () => number } {
  let running = 0;
  const mcp = new McpServer({ name: 'fleet-sdk', version: '1.0.0' });
  mcp.registerTool(
    'patrol',
    {
      description: 'Patrol in the background',
      inputSchema: { step_ms: z.number().int().min(0).max(10_000) },
    },
    ({ step_ms }) => {
      const taskId = `flee-${randomBytes(6).toString('hex')}`;
      running += 1;
      let step = 0;
      const tick = (): void => {
        step += 1;
        const eta = ((PATROL_PROGRESS_EVENTS - step) * step_ms) / 1000;
        sink({ task_id: taskId, seq: step, type: 'progress', payload: { percent: step * 10, eta_s: eta } });
        if (step < PATROL_PROGRESS_EVENTS) {
          setTimeout(tick, step_ms);
          return;
        }
        running -= 1;
        sink({ task_id: taskId, seq: step + 1, type: 'task_done', payload: { result: { laps: 1 } } });
      };
      setTimeout(tick, step_ms);
      const info = { task_id: taskId, state: 'running' };
      return { content: [{ type: 'text', text: JSON.stringify(info) }], structuredContent: info };
    },
  );
  return { mcp, running: () => running };
}

/**
 * The SDK floor of the scale scenario: {@link floorServer}, with no task table, no validation
 * beyond zod, no event poster: what any server that runs background work from a tool call pays at
 * the least. Same client, calls in flight and sampling as the kit's child, so RSS per task and the
 * last event's arrival compare directly.
 */
async function main(tasks: number, stepMs: number, inFlight: number): Promise<ScaleResult> {
  const last = new Map<string, number>();
  let delivered = 0;
  let reordered = 0;
  const { mcp, running } = floorServer((event) => {
    delivered += 1;
    if (event.seq !== (last.get(event.task_id) ?? 0) + 1) reordered += 1;
    last.set(event.task_id, event.seq);
  });
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  await mcp.connect(serverSide);
  const client = new Client({ name: 'fleet-bench', version: '1.0.0' });
  await client.connect(clientSide);
  // No forced gc() before the baseline: a synchronous full GC here made V8 pretenure the event
  // path for the rest of the run, which no server does (docs/benchmarks.md, Method).
  const baselineRss = process.memoryUsage().rss;
  const peak = { rss: baselineRss, heap: 0, running: 0 };
  const sample = (): void => {
    const memory = process.memoryUsage();
    peak.rss = Math.max(peak.rss, memory.rss);
    peak.heap = Math.max(peak.heap, memory.heapUsed);
    peak.running = Math.max(peak.running, running());
  };
  const sampler = setInterval(sample, 10);
  const t0 = performance.now();
  const ids = await startPatrols(client, tasks, stepMs, inFlight);
  const startAllMs = performance.now() - t0;
  sample();
  while (running() > 0) await new Promise((resolve) => setTimeout(resolve, 5));
  const allDeliveredMs = performance.now() - t0;
  clearInterval(sampler);
  sample();
  const perTask = PATROL_PROGRESS_EVENTS + 1;
  let lost = 0;
  for (const id of ids) lost += Math.max(0, perTask - (last.get(id) ?? 0));
  await client.close();
  await mcp.close();
  return {
    tasks,
    receiver: 'memory',
    inFlight,
    peakRunning: peak.running,
    startAllMs,
    allDeliveredMs,
    peakRssMb: mb(peak.rss),
    baselineRssMb: mb(baselineRss),
    peakHeapMb: mb(peak.heap),
    peakQueueDepth: 0,
    expectedEvents: tasks * perTask,
    deliveredEvents: delivered,
    lost,
    reordered,
    dropped: 0,
    coalesced: 0,
  };
}

const args = scaleChildArgs();
reportToParent('scale floor', main(args.tasks, args.stepMs, args.inFlight));
