import { createServer, type Server } from 'node:http';
import { type AddressInfo } from 'node:net';
import { type TaskEvent } from '@robot-mcp-kit/core';
import { type SeqGap, coalescedSeqsOf, createEventReceiver } from '@robot-mcp-kit/receiver';
import { INTEROP_SECRET, type ReceiverGate, SERVER, driveOverload } from './overload.driver.js';

// Issue 17, end to end: a real EventPoster + HttpEventTransport posting to the kit's receiver on
// a real HTTP server, under forced overload (tiny queue, receiver held until released). Every
// task ends; the seqs coalesced right before a task's end are named on its terminal event, so
// the receiver reports no gap at all (docs/contract.md, "Coalesced progress").

const PLAN = { batches: 8, tasksPerBatch: 12, progressPerTask: 6, maxQueue: 16 };

describe('overload against the kit receiver over HTTP', () => {
  let server: Server | undefined;

  afterAll(async () => {
    server?.closeAllConnections();
    await new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve()));
  });

  it('delivers every terminal event and leaves no unnamed seq gap', async () => {
    let opened: Promise<void> = Promise.resolve();
    let open = (): void => undefined;
    let held = 0;
    const terminals = new Map<string, TaskEvent>();
    let terminalsWithMarker = 0;
    const gaps: SeqGap[] = [];
    const receiver = createEventReceiver({
      secrets: { [SERVER]: INTEROP_SECRET },
      onEvent: async (event) => {
        held += 1;
        await opened; // blocked until the test releases it
        held -= 1;
        if (event.type === 'task_done' || event.type === 'task_failed') {
          terminals.set(event.task_id, event);
          if (coalescedSeqsOf(event)) terminalsWithMarker += 1;
        }
      },
      onGap: (gap) => {
        gaps.push(gap);
      },
    });
    server = createServer(receiver.handler);
    await new Promise<void>((resolve) => server!.listen(0, '127.0.0.1', resolve));
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/api/agent/events`;
    const gate: ReceiverGate = {
      block: async () => {
        opened = new Promise<void>((resolve) => (open = resolve));
      },
      release: async () => open(),
      held: async () => held,
    };

    const report = await driveOverload(url, PLAN, gate);
    const posterStats = report.poster.stats;
    await report.poster.aclose();
    await receiver.close();

    const stats = receiver.stats();
    expect(posterStats.dropped).toBe(0);
    expect(posterStats.coalesced).toBeGreaterThan(PLAN.batches * PLAN.tasksPerBatch); // really overloaded
    expect(terminals.size).toBe(report.terminals.size);
    for (const [id, { seq, type }] of report.terminals) {
      expect({ id, seq: terminals.get(id)?.seq, type: terminals.get(id)?.type }).toEqual({ id, seq, type });
    }
    expect(terminalsWithMarker).toBeGreaterThan(0);
    expect(gaps).toEqual([]);
    expect(stats.gaps).toBe(0);
    // Every coalesced seq was named exactly once, and only those.
    expect(stats.coalesced).toBe(posterStats.coalesced);
    expect(stats.delivered + stats.coalesced).toBe(report.posted);
    expect(Object.keys(stats.byStatus)).toEqual(['200']);
    expect(receiver.openTasks()).toEqual([]);
  });
});
