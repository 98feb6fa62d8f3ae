import { afterEach, describe, expect, it } from '@jest/globals';
import { type Detection, SimulatedDetector } from '../src/simulated-detector.js';
import { PerceptionWatcherServer } from '../src/perception-watcher.server.js';
import { connect, type Harness, textOf, typesOf } from './harness.js';

// 10 frames per second on the ManualClock: advancing 2 s runs exactly 20 frames.
const CONFIG = { rateHz: 10, seed: 7 };

let h: Harness | undefined;

afterEach(async () => {
  await h?.close();
  h = undefined;
});

async function start(): Promise<Harness> {
  h = await connect(PerceptionWatcherServer, { instance: new PerceptionWatcherServer(CONFIG) });
  return h;
}

async function watch(harness: Harness, args: Record<string, unknown>): Promise<string> {
  const result = await harness.call('watch_for', args);
  expect(result.isError).toBeFalsy();
  expect(result.structuredContent).toMatchObject({ tool: 'watch_for', state: 'running' });
  return (result.structuredContent as { task_id: string }).task_id;
}

/** What the detector sees in the first `frames` frames, filtered as watch_for filters. */
function expected(frames: number, label: string, minConfidence: number): Detection[] {
  const detector = new SimulatedDetector(CONFIG.seed);
  const seen: Detection[] = [];
  for (let i = 0; i < frames; i += 1) {
    seen.push(...detector.nextFrame().filter((d) => d.label === label && d.confidence >= minConfidence));
  }
  return seen;
}

describe('perception watcher', () => {
  it('lists watch_for and list_labels with schemas and read-only annotations', async () => {
    const harness = await start();
    const { tools } = await harness.client.listTools();
    expect(tools.map((t) => t.name)).toEqual(
      expect.arrayContaining(['watch_for', 'list_labels', 'get_task', 'cancel_task', 'list_tasks']),
    );
    const watchFor = tools.find((t) => t.name === 'watch_for')!;
    expect(watchFor.annotations).toMatchObject({ readOnlyHint: true });
    const schema = watchFor.inputSchema as {
      properties: Record<string, Record<string, unknown>>;
      required: string[];
    };
    expect(schema.required).toEqual(['label']);
    expect(schema.properties.label).toMatchObject({ type: 'string' });
    expect(schema.properties.min_confidence).toMatchObject({ type: 'number', minimum: 0, maximum: 1 });
    expect(String(schema.properties.min_confidence!.description)).toContain('0.5');
    expect(tools.find((t) => t.name === 'list_labels')!.annotations).toMatchObject({ readOnlyHint: true });
    expect(await harness.json('list_labels')).toEqual({
      labels: ['person', 'cup', 'bottle', 'chair', 'laptop', 'dog'],
      rate_hz: 10,
    });
  });

  it('emits a watch_event for each sighting of the label, with the default min_confidence 0.5', async () => {
    const harness = await start();
    const taskId = await watch(harness, { label: 'person' });
    await harness.advance(2000);
    const events = harness.events(taskId);
    const sightings = expected(20, 'person', 0.5);
    expect(sightings.length).toBeGreaterThan(3);
    expect(events.map((e) => e.payload)).toEqual(sightings);
    expect(typesOf(events).every((t) => t === 'watch_event')).toBe(true);
    expect(events.map((e) => e.seq)).toEqual(events.map((_, i) => i + 1));
    for (const { payload } of events) {
      expect(payload).toMatchObject({
        label: 'person',
        bbox: expect.objectContaining({ width: expect.any(Number) }),
      });
    }
    expect(await harness.json('get_task', { task_id: taskId })).toMatchObject({
      state: 'running',
      result: null,
    });
  });

  it('honours min_confidence', async () => {
    const harness = await start();
    const taskId = await watch(harness, { label: 'cup', min_confidence: 0.8 });
    await harness.advance(5000);
    const payloads = harness.events(taskId).map((e) => e.payload);
    expect(payloads).toEqual(expected(50, 'cup', 0.8));
    expect(payloads.length).toBeGreaterThan(0);
    expect(payloads.length).toBeLessThan(expected(50, 'cup', 0).length);
    expect(payloads.every((p) => (p.confidence as number) >= 0.8)).toBe(true);
  });

  it('stops on cancel_task: no more watch events and no terminal event', async () => {
    const harness = await start();
    const taskId = await watch(harness, { label: 'person', min_confidence: 0 });
    const other = await watch(harness, { label: 'chair', min_confidence: 0 });
    await harness.advance(1000);
    const before = harness.events(taskId).length;
    expect(before).toBe(expected(10, 'person', 0).length);
    expect(await harness.json('cancel_task', { task_id: taskId })).toEqual({
      task_id: taskId,
      state: 'cancelled',
    });
    await harness.advance(10_000);
    expect(harness.events(taskId)).toHaveLength(before);
    expect(typesOf(harness.events(taskId))).not.toContain('task_done');
    expect(typesOf(harness.events(taskId))).not.toContain('task_failed');
    // The other watcher keeps watching.
    expect(harness.events(other).map((e) => e.payload)).toEqual(expected(110, 'chair', 0));
    const { tasks } = await harness.json<{ tasks: { task_id: string }[] }>('list_tasks', {
      states: ['running'],
    });
    expect(tasks.map((t) => t.task_id)).toEqual([other]);
  });

  it('fails an unknown label with UNKNOWN_LABEL and the labels to choose from', async () => {
    const harness = await start();
    const taskId = await watch(harness, { label: 'unicorn' });
    await harness.advance(0);
    expect(harness.events(taskId).map((e) => [e.type, e.payload])).toEqual([
      [
        'task_failed',
        {
          error_code: 'UNKNOWN_LABEL',
          message: 'The detector does not know "unicorn". It knows: person, cup, bottle, chair, laptop, dog.',
          recoverable: true,
          suggestions: ['choose_one_of:person,cup,bottle,chair,laptop,dog'],
        },
      ],
    ]);
  });

  it('rejects bad arguments as tool errors', async () => {
    const harness = await start();
    const result = await harness.call('watch_for', { label: 'cup', min_confidence: 2 });
    expect(result.isError).toBe(true);
    expect(textOf(result)).toContain('min_confidence');
    expect(harness.app.taskManager.list()).toEqual([]);
  });

  it('cancels running watchers on shutdown without a terminal event', async () => {
    const harness = await start();
    const taskId = await watch(harness, { label: 'person' });
    await harness.advance(500);
    await harness.app.close({ timeoutMs: 1000 });
    expect(harness.app.taskManager.get(taskId)!.state).toBe('cancelled');
    expect(typesOf(harness.events(taskId)).every((t) => t === 'watch_event')).toBe(true);
  });
});
