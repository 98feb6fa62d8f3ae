import { randomBytes } from 'node:crypto';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { type CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { z } from 'zod';
import { PATROL_PROGRESS_EVENTS } from '../fixtures/fleet.server.js';
import { type ScaleResult } from './concurrent-tasks.child.js';

/** One event of the floor's background loops, as its in-process sink sees it. */
interface FloorEvent {
  readonly task_id: string;
  readonly seq: number;
  readonly type: 'progress' | 'task_done';
  readonly payload: Record<string, unknown>;
}

const mb = (bytes: number) => bytes / (1024 * 1024);

/**
 * The SDK floor of the scale scenario: a hand-written McpServer whose `patrol` tool starts a
 * background loop (10 steps on setTimeout, one event each, then a done event) and answers at once
 * with the task's id. No task table, no validation beyond zod, no event poster: what any server
 * that runs background work from a tool call pays at the least. Same client, calls in flight and
 * sampling as the kit's child, so RSS per task and the last event's arrival compare directly.
 */
async function main(tasks: number, stepMs: number, inFlight: number): Promise<ScaleResult> {
  const last = new Map<string, number>();
  let delivered = 0;
  let reordered = 0;
  let running = 0;
  const sink = (event: FloorEvent): void => {
    delivered += 1;
    if (event.seq !== (last.get(event.task_id) ?? 0) + 1) reordered += 1;
    last.set(event.task_id, event.seq);
  };
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
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  await mcp.connect(serverSide);
  const client = new Client({ name: 'fleet-bench', version: '1.0.0' });
  await client.connect(clientSide);
  (globalThis as { gc?: () => void }).gc?.();
  const baselineRss = process.memoryUsage().rss;
  let peakRss = baselineRss;
  let peakHeap = 0;
  let peakRunning = 0;
  const sample = () => {
    const memory = process.memoryUsage();
    peakRss = Math.max(peakRss, memory.rss);
    peakHeap = Math.max(peakHeap, memory.heapUsed);
    peakRunning = Math.max(peakRunning, running);
  };
  const sampler = setInterval(sample, 10);
  const t0 = performance.now();
  const ids = new Set<string>();
  let next = 0;
  const worker = async () => {
    while (next < tasks) {
      next += 1;
      const result = (await client.callTool({
        name: 'patrol',
        arguments: { step_ms: stepMs },
      })) as CallToolResult;
      const info = result.structuredContent as { task_id?: string } | undefined;
      if (result.isError || !info?.task_id)
        throw new Error(`a patrol did not start: ${JSON.stringify(result)}`);
      ids.add(info.task_id);
    }
  };
  await Promise.all(Array.from({ length: Math.min(inFlight, tasks) }, worker));
  const startAllMs = performance.now() - t0;
  sample();
  while (running > 0) await new Promise((resolve) => setTimeout(resolve, 5));
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
    peakRunning,
    startAllMs,
    allDeliveredMs,
    peakRssMb: mb(peakRss),
    baselineRssMb: mb(baselineRss),
    peakHeapMb: mb(peakHeap),
    peakQueueDepth: 0,
    expectedEvents: tasks * perTask,
    deliveredEvents: delivered,
    lost,
    reordered,
    dropped: 0,
    coalesced: 0,
  };
}

const tasks = Number(process.argv[2] ?? 10_000);
const stepMs = Number(process.argv[3] ?? 300);
const inFlight = Number(process.argv[4] ?? 64);
main(tasks, stepMs, inFlight).then(
  (result) => {
    process.send?.(result);
    process.exitCode = 0;
  },
  (err: unknown) => {
    process.stderr.write(
      `scale floor failed: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`,
    );
    process.exitCode = 1;
  },
);
