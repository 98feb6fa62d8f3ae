import { readFileSync } from 'node:fs';
import { SCHEMA_VERSION, TaskEvent, parseTaskEvent } from '@robot-mcp-kit/core';

interface SigningCase {
  body_base64: string;
}
const fixtures = JSON.parse(readFileSync(new URL('../fixtures/signing.json', import.meta.url), 'utf8')) as {
  cases: SigningCase[];
};

function sampleEvent(): TaskEvent {
  return TaskEvent.create({
    event_id: '8c1f0e2a4b6d4e8f9a0b1c2d3e4f5a6b',
    task_id: 'nav-7f3a2b',
    server: 'navigation',
    tool: 'navigate_to',
    type: 'progress',
    seq: 4,
    ts: new Date(Date.UTC(2026, 5, 12, 14, 3, 0, 123)),
    payload: { eta_s: 22.4, distance_m: 14.1, percent: 60 },
  });
}

describe('TaskEvent wire form', () => {
  it('serializes with the exact spec field names and order', () => {
    expect(JSON.stringify(sampleEvent())).toBe(
      '{"schema_version":1,"event_id":"8c1f0e2a4b6d4e8f9a0b1c2d3e4f5a6b","task_id":"nav-7f3a2b",' +
        '"server":"navigation","tool":"navigate_to","type":"progress","seq":4,' +
        '"ts":"2026-06-12T14:03:00.123Z","payload":{"eta_s":22.4,"distance_m":14.1,"percent":60}}',
    );
  });

  it('defaults schema_version to SCHEMA_VERSION and keeps an explicit one', () => {
    expect(sampleEvent().schema_version).toBe(SCHEMA_VERSION);
    expect(SCHEMA_VERSION).toBe(1);
    const v2 = TaskEvent.create({ ...sampleEvent(), schema_version: 2 });
    expect(JSON.stringify(v2)).toMatch(/^\{"schema_version":2,"event_id":/);
  });

  it('writes ts as ISO 8601 UTC with milliseconds and Z, even on a whole second', () => {
    const event = TaskEvent.create({ ...sampleEvent(), ts: new Date(Date.UTC(2026, 0, 1)) });
    expect(event.toJSON().ts).toBe('2026-01-01T00:00:00.000Z');
  });

  it('round-trips the fixture body (5th signing vector) byte for byte', () => {
    const body = Buffer.from(fixtures.cases[4]!.body_base64, 'base64').toString('utf8');
    const event = parseTaskEvent(body);
    expect(event).toBeInstanceOf(TaskEvent);
    expect(event.ts).toBeInstanceOf(Date);
    expect(event.type).toBe('progress');
    expect(JSON.stringify(event)).toBe(body);
    expect(JSON.stringify(sampleEvent())).toBe(body);
  });

  it('round-trips from bytes and from a parsed object', () => {
    const body = JSON.stringify(sampleEvent());
    expect(JSON.stringify(parseTaskEvent(Buffer.from(body)))).toBe(body);
    expect(JSON.stringify(parseTaskEvent(JSON.parse(body)))).toBe(body);
  });

  it('round-trips every event type with nested payloads and unicode', () => {
    const payloads = {
      progress: { percent: 10 },
      trigger_fired: { trigger: { type: 'eta_below', seconds: 10 }, eta_s: 9.4 },
      task_done: { result: { zone: 'küche', emoji: '🤖', nested: [1, { a: null }] } },
      task_failed: { error_code: 'DOOR_CLOSED', message: 'x', recoverable: false, suggestions: [] },
      watch_event: {},
    } as const;
    for (const [type, payload] of Object.entries(payloads)) {
      const event = TaskEvent.create({ ...sampleEvent(), type: type as TaskEvent['type'], payload });
      const body = JSON.stringify(event);
      expect(JSON.stringify(parseTaskEvent(body))).toBe(body);
    }
  });
});
