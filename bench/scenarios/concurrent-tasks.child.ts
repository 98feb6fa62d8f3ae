import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { silentLogger, type TaskEvent } from '@robot-mcp-kit/core';
import { InMemoryEventTransport } from '@robot-mcp-kit/core/testing';
import { bootstrap } from '@robot-mcp-kit/server';
import { FleetServer, PATROL_PROGRESS_EVENTS } from '../fixtures/fleet.server.js';
import { SCALE_SECRET } from '../fixtures/scale.constants.js';
import { reportToParent, scaleChildArgs, startPatrols } from '../harness/scale-child.js';

/** What the child reports to the parent. */
export interface ScaleResult {
  tasks: number;
  /** Where the events went: an in-process InMemoryEventTransport, or signed POSTs to a receiver. */
  receiver: 'memory' | 'http';
  /** Calls in flight at once while starting. */
  inFlight: number;
  /** Most tasks running at the same time (all of them, when the start phase is fast enough). */
  peakRunning: number;
  /** From the first call sent to the last TaskInfo received. */
  startAllMs: number;
  /** From the first call to the last event delivered. */
  allDeliveredMs: number;
  peakRssMb: number;
  baselineRssMb: number;
  /** Largest V8 heap in use seen while sampling (garbage included). */
  peakHeapMb: number;
  /** Most events waiting in the poster at once. */
  peakQueueDepth: number;
  expectedEvents: number;
  deliveredEvents: number;
  lost: number;
  reordered: number;
  dropped: number;
  /** Progress events coalesced under overload (newest wins; named to the receiver). */
  coalesced: number;
}

const mb = (bytes: number) => bytes / (1024 * 1024);

/**
 * Checks seq contiguity per task as events are acknowledged by an InMemoryEventTransport that
 * records nothing (`record: false`), so the instrument holds no event after its check (a real
 * HTTP transport keeps nothing after delivery either).
 */
class OrderCheck {
  readonly transport: InMemoryEventTransport;
  private readonly last = new Map<string, number>();
  reordered = 0;
  delivered = 0;

  constructor() {
    this.transport = new InMemoryEventTransport(
      (delivery) => {
        this.see(delivery.event);
        return { ok: true, status: 200 };
      },
      { record: false },
    );
  }

  private see(event: TaskEvent): void {
    this.delivered += 1;
    const previous = this.last.get(event.task_id) ?? 0;
    if (event.seq !== previous + 1) this.reordered += 1;
    this.last.set(event.task_id, event.seq);
  }

  /** Events missing at the end: each task must have reached seq `perTask`. */
  lost(ids: ReadonlySet<string>, perTask: number): number {
    let lost = 0;
    for (const id of ids) lost += Math.max(0, perTask - (this.last.get(id) ?? 0));
    return lost;
  }
}

/**
 * The scale scenario, run in a fresh process so its RSS is its own: starts `tasks` patrols through
 * an MCP client (in-memory, `inFlight` calls at a time), each reporting 10 progress events
 * `stepMs` apart (so all of them run at once), and checks at an InMemoryEventTransport that every
 * event of every task arrived, in seq order.
 */
async function main(
  tasks: number,
  stepMs: number,
  inFlight: number,
  receiverUrl: string | undefined,
): Promise<ScaleResult> {
  const check = new OrderCheck();
  // With a receiver URL the server is configured like a user's: RVC_CALLBACK_URL + secret, the
  // kit's HttpEventTransport; the receiver (in the parent process) checks signatures and order.
  const app = receiverUrl
    ? bootstrap(FleetServer, {
        env: { RVC_CALLBACK_URL: receiverUrl, RVC_EVENT_SECRET: SCALE_SECRET },
        logger: silentLogger,
      })
    : bootstrap(FleetServer, { eventTransport: check.transport, env: {}, logger: silentLogger });
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  await app.connect(serverSide);
  const client = new Client({ name: 'fleet-bench', version: '1.0.0' });
  await client.connect(clientSide);
  // No forced gc() before the baseline: a synchronous full GC here made V8 pretenure the event
  // path for the rest of the run, which no server does (docs/benchmarks.md, Method).
  const baselineRss = process.memoryUsage().rss;
  let peakRss = baselineRss;
  let peakRunning = 0;
  let peakHeap = 0;
  let peakQueueDepth = 0;
  const sample = () => {
    const memory = process.memoryUsage();
    peakRss = Math.max(peakRss, memory.rss);
    peakHeap = Math.max(peakHeap, memory.heapUsed);
    peakRunning = Math.max(peakRunning, app.taskManager.runningCount);
    peakQueueDepth = Math.max(peakQueueDepth, app.poster.stats.queueDepth);
  };
  const sampler = setInterval(sample, 10);

  const t0 = performance.now();
  const ids = await startPatrols(client, tasks, stepMs, inFlight);
  const startAllMs = performance.now() - t0;
  sample();
  peakRss = Math.max(peakRss, process.memoryUsage().rss);

  while (app.taskManager.runningCount > 0) await new Promise((resolve) => setTimeout(resolve, 5));
  if (!(await app.poster.flush(180_000))) throw new Error('the poster did not flush in 180 s');
  const allDeliveredMs = performance.now() - t0;
  clearInterval(sampler);
  sample();

  const perTask = PATROL_PROGRESS_EVENTS + 1;
  const lost = receiverUrl ? 0 : check.lost(ids, perTask); // the parent counts at its receiver
  const { dropped, coalesced } = app.poster.stats;
  const delivered = receiverUrl ? app.poster.stats.delivered : check.delivered;
  await client.close();
  await app.close({ timeoutMs: 1000 });
  return {
    tasks,
    receiver: receiverUrl ? 'http' : 'memory',
    inFlight,
    peakRunning,
    startAllMs,
    allDeliveredMs,
    peakRssMb: mb(peakRss),
    baselineRssMb: mb(baselineRss),
    peakHeapMb: mb(peakHeap),
    peakQueueDepth,
    expectedEvents: tasks * perTask,
    deliveredEvents: delivered,
    lost,
    reordered: check.reordered,
    dropped,
    coalesced,
  };
}

const args = scaleChildArgs();
reportToParent('scale scenario', main(args.tasks, args.stepMs, args.inFlight, args.receiverUrl));
