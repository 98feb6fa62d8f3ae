import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { ConfigError, EventPoster, type EventType } from '@robot-mcp-kit/core';
import { InMemoryEventTransport, ManualClock, MemoryLogger } from '@robot-mcp-kit/core/testing';
import { makeEvent } from './test-helpers.js';

const T0 = Date.UTC(2026, 0, 1);
const MiB = 1024 * 1024;

setFlagsFromString('--expose-gc');
const gc = runInNewContext('gc') as () => void;

function heapAfterGc(): number {
  gc();
  gc();
  return process.memoryUsage().heapUsed;
}

/** A poster whose receiver is down: every attempt fails, and no time passes (no retry ever lands). */
function downPoster(options: { maxQueue?: number; maxQueueBytes?: number } = {}) {
  const clock = new ManualClock(T0);
  const logger = new MemoryLogger();
  const transport = new InMemoryEventTransport(() => ({ ok: false, error: 'ECONNREFUSED' }));
  const poster = new EventPoster({ serverName: 'sleeper', transport, clock, logger, ...options });
  return { clock, logger, transport, poster };
}

/** Posts `count` events of ~10 KB (unique strings) over 100 tasks, progress and trigger_fired mixed. */
function flood(poster: EventPoster, count: number): void {
  for (let i = 0; i < count; i += 1) {
    const task = `sleeper-${(i % 100).toString(16).padStart(6, '0')}`;
    const type: EventType = i % 3 === 0 ? 'trigger_fired' : 'progress';
    const event = makeEvent(task, Math.floor(i / 100) + 1, type);
    event.payload = { blob: `${i}:`.padEnd(10_000, 'x') };
    poster.post(event);
  }
}

describe('EventPoster memory during an outage (issue 13.1)', () => {
  it('keeps 20,000 events of 10 KB with maxQueue 1000 within the queue: dropped events release their memory', async () => {
    const { poster, transport } = downPoster({ maxQueue: 1000 });
    await Promise.resolve();
    const before = heapAfterGc();
    flood(poster, 20_000);
    await new Promise((resolve) => setImmediate(resolve));
    const grown = heapAfterGc() - before;
    // Before the fix the 19,000 dropped events stayed reachable in their lanes (+200 MB here).
    expect(grown).toBeLessThan(48 * MiB);
    const stats = poster.stats;
    // 1000 waiting, plus at most one in flight per lane (100 tasks here).
    expect(stats.queueDepth).toBeGreaterThanOrEqual(1000);
    expect(stats.queueDepth).toBeLessThanOrEqual(1100);
    expect(stats.accepted).toBe(20_000);
    expect(stats.dropped + stats.coalesced).toBe(20_000 - stats.queueDepth);
    // ~1000 queued events of ~10 KB: ~20 MB charged (2 bytes a character + 512 each); the heap
    // holds about that.
    expect(stats.queueBytes).toBeLessThanOrEqual(1100 * (2 * 10_400 + 512));
    expect(transport.attempts.length).toBeGreaterThan(0);
    await poster.aclose({ timeoutMs: 0 });
  });

  it('bounds the queue in bytes: maxQueueBytes wins over maxQueue', async () => {
    const { poster } = downPoster({ maxQueue: 10_000, maxQueueBytes: 2 * MiB });
    flood(poster, 5000);
    await Promise.resolve();
    const { queueBytes, queueDepth } = poster.stats;
    expect(queueBytes).toBeLessThanOrEqual(2 * MiB);
    expect(queueBytes).toBeGreaterThan(MiB);
    expect(queueDepth).toBeLessThan(110);
    await poster.aclose({ timeoutMs: 0 });
  });

  it('drops an event larger than the whole budget, with a clear reason', async () => {
    const { poster, logger } = downPoster({ maxQueueBytes: 64 * 1024 });
    const huge = makeEvent('nav-1', 1, 'task_done');
    huge.payload = { result: { blob: 'y'.repeat(40_000) } };
    poster.post(huge);
    expect(poster.stats).toMatchObject({ dropped: 1, queueDepth: 0, queueBytes: 0 });
    expect(logger.at('error', 'exceeds maxQueueBytes')[0]!.meta).toMatchObject({ reason: 'too_large' });
    await poster.aclose({ timeoutMs: 0 });
  });

  it('logs drops as one summary line per 10 s, not one line per event', async () => {
    const { poster, logger, clock } = downPoster({ maxQueue: 100 });
    flood(poster, 5000);
    await Promise.resolve();
    // The first drop of the window in full, then nothing until the window closes.
    expect(logger.entries.filter((e) => e.level !== 'debug').length).toBeLessThanOrEqual(3);
    await clock.advance(10_000);
    const summary = logger.entries.filter((e) => e.message.includes('in the last window'));
    expect(summary).toHaveLength(1);
    const meta = summary[0]!.meta as {
      dropped: number;
      by_reason: Record<string, number>;
      top_tasks: object;
    };
    const gone = 5000 - poster.stats.queueDepth;
    expect(gone).toBeGreaterThan(4000);
    expect(meta.dropped).toBe(gone - 1);
    expect(meta.by_reason.coalesced! + (meta.by_reason.queue_full ?? 0)).toBe(gone - 1);
    expect(Object.keys(meta.top_tasks).length).toBeLessThanOrEqual(10);
    // A quiet window logs nothing more.
    await clock.advance(10_000);
    expect(logger.entries.filter((e) => e.message.includes('in the last window'))).toHaveLength(1);
    await poster.aclose({ timeoutMs: 0 });
  });

  it('validates maxQueueBytes and RVC_EVENT_QUEUE_MAX_BYTES with a ConfigError naming them', () => {
    const transport = new InMemoryEventTransport();
    expect(() => new EventPoster({ serverName: 's', transport, maxQueueBytes: 1000 })).toThrow(
      /^maxQueueBytes: must be an integer >= 65536/,
    );
    const make = (value: string) => EventPoster.fromEnv('s', { env: { RVC_EVENT_QUEUE_MAX_BYTES: value } });
    expect(() => make('64MB')).toThrow(ConfigError);
    expect(() => make('64MB')).toThrow(/^RVC_EVENT_QUEUE_MAX_BYTES: .*e\.g\. 67108864/);
    expect(make('1048576').stats.queueBytes).toBe(0);
  });
});
