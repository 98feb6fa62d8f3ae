import { afterEach, describe, expect, it } from '@jest/globals';
import { type CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { bootstrap } from '@robot-mcp-kit/server';
import { type EventFeed, eventFeedOf } from '@robot-mcp-kit/server/advanced';
import { ArmServer } from '../fixtures/arm.server.js';
import { type AppHarness, type Session, startApp, textOf, until } from '../fixtures/multi-client.js';

let h: AppHarness<ArmServer> | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

type Json = Record<string, unknown>;
const feedOf = (harness: AppHarness<ArmServer>): EventFeed => eventFeedOf(harness.app)!;

async function running(harness: AppHarness<ArmServer>, session: Session, tool = 'drive'): Promise<string> {
  const id = await session.start(tool);
  await until(() => harness.server.controls.has(id));
  return id;
}

/** Starts a wait and resolves once the server registered it. */
async function waitInBackground(
  harness: AppHarness<ArmServer>,
  session: Session,
  args: Json,
): Promise<{ result: Promise<Json> }> {
  const before = feedOf(harness).waiting;
  const result = session.json<Json>('wait_for_event', args);
  await until(() => feedOf(harness).waiting > before);
  return { result };
}

describe('get_events', () => {
  it('returns the entries after a cursor, the next cursor, and more when the limit cut it', async () => {
    h = startApp(ArmServer);
    const s = await h.session();
    const id = await running(h, s);
    const { ctx } = h.server.control(id);
    for (let p = 1; p <= 3; p += 1) await ctx.progress({ percent: p * 10 });
    const all = await s.json<{ entries: Json[]; cursor: number; more: boolean }>('get_events');
    expect(all.entries.map((e) => e.cursor)).toEqual([1, 2, 3]);
    expect(all.entries[0]).toMatchObject({
      kind: 'event',
      event: {
        task_id: id,
        tool: 'drive',
        type: 'progress',
        seq: 1,
        payload: { percent: 10 },
        schema_version: 1,
      },
    });
    expect(all).toMatchObject({ cursor: 3, more: false });
    expect(await s.json('get_events', { since: 1, limit: 1 })).toMatchObject({
      entries: [{ cursor: 2 }],
      cursor: 2,
      more: true,
    });
    expect(await s.json('get_events', { since: 3 })).toEqual({ entries: [], cursor: 3, more: false });
    const ahead = await s.call('get_events', { since: 40 });
    expect(ahead.isError).toBe(true);
    expect(textOf(ahead)).toMatch(/since 40 is ahead of the newest cursor 3/);
    expect((await s.call('get_events', { limit: 0 })).isError).toBe(true);
  });

  it('records cancellations, and reports overwritten entries as lost with a count', async () => {
    h = startApp(ArmServer, { env: { RMK_EVENT_BUFFER: '3' } });
    const s = await h.session();
    const id = await running(h, s);
    for (let p = 1; p <= 4; p += 1) await h.server.control(id).ctx.progress({ percent: p });
    await s.json('cancel_task', { task_id: id });
    const page = await s.json<{ entries: Json[]; cursor: number }>('get_events', { since: 0 });
    expect(page.entries).toEqual([
      { cursor: 2, kind: 'lost', count: 2 },
      expect.objectContaining({ cursor: 3, kind: 'event' }),
      expect.objectContaining({ cursor: 4, kind: 'event' }),
      expect.objectContaining({ cursor: 5, kind: 'cancelled', task_id: id, tool: 'drive' }),
    ]);
    expect(page.cursor).toBe(5);
  });
});

describe('wait_for_event', () => {
  it('a wait that starts before the event fires returns it (trigger types match trigger_fired)', async () => {
    h = startApp(ArmServer);
    const s = await h.session();
    const id = await running(h, s);
    await s.json('get_events'); // not a task start: the wait below starts at the newest entry
    const waiting = await waitInBackground(h, s, { type: 'zone_entered', task_id: id, timeout_s: 45 });
    const { ctx } = h.server.control(id);
    await ctx.progress({ zone: 'hall' });
    await ctx.fireTrigger({ type: 'zone_entered', zone: 'kitchen' }, { zone: 'kitchen' });
    const result = await waiting.result;
    expect(result).toMatchObject({
      timeout: false,
      cursor: 2,
      entry: {
        cursor: 2,
        kind: 'event',
        event: { type: 'trigger_fired', payload: { trigger: { zone: 'kitchen' } } },
      },
    });
  });

  it("without since, starts at this session's last task start, so an event fired in between is not missed", async () => {
    h = startApp(ArmServer);
    const a = await h.session();
    const b = await h.session();
    const other = await running(h, b, 'watch_people');
    await h.server.control(other).ctx.emit({ person: 'early' }); // cursor 1, before a's start
    const id = await running(h, a);
    await h.server.control(id).ctx.fireTrigger({ type: 'eta_below', seconds: 5 }); // cursor 2, before a's wait
    expect(await a.json('wait_for_event', { type: 'eta_below', timeout_s: 0 })).toMatchObject({
      timeout: false,
      entry: { cursor: 2, event: { task_id: id } },
    });
    // the start cursor is used once: the next wait without since starts at the newest entry
    expect(await a.json('wait_for_event', { type: 'eta_below', timeout_s: 0 })).toEqual({
      timeout: true,
      cursor: 2,
    });
    // b's last start was before the watch_event; its first wait starts there
    expect(await b.json('wait_for_event', { type: 'watch_event', timeout_s: 0 })).toMatchObject({
      entry: { cursor: 1 },
    });
    // since wins over the recorded cursor
    await running(h, a, 'watch_people');
    expect(await a.json('wait_for_event', { since: 0, timeout_s: 0 })).toMatchObject({
      entry: { cursor: 1 },
    });
  });

  it('times out on the clock with the cursor it started at', async () => {
    h = startApp(ArmServer);
    const s = await h.session();
    const id = await running(h, s);
    await h.server.control(id).ctx.progress({ percent: 1 });
    const waiting = await waitInBackground(h, s, { type: 'task_done', since: 1, timeout_s: 30 });
    await h.server.control(id).ctx.progress({ percent: 2 });
    await h.clock.advance(29_999);
    expect(feedOf(h).waiting).toBe(1);
    await h.clock.advance(1);
    expect(await waiting.result).toEqual({ timeout: true, cursor: 1 });
  });

  it('defaults to a 25 s timeout and allows at most 45 s, a progressToken or not', async () => {
    h = startApp(ArmServer);
    const s = await h.session();
    const waiting = await waitInBackground(h, s, {});
    await h.clock.advance(24_999);
    expect(feedOf(h).waiting).toBe(1);
    await h.clock.advance(1);
    expect(await waiting.result).toEqual({ timeout: true, cursor: 0 });
    const most = await waitInBackground(h, s, { timeout_s: 45 });
    await h.clock.advance(45_000);
    expect(await most.result).toEqual({ timeout: true, cursor: 0 });
    for (const timeout_s of [46, 50]) {
      const refused = await s.call('wait_for_event', { timeout_s });
      expect(refused.isError).toBe(true);
      expect(textOf(refused)).toMatch(
        /timeout_s: at most 45 seconds on this server \(most clients give up on a request after 60 s\); to wait longer, call again with since/,
      );
    }
    // A progressToken does not lift the limit: LangChain's adapters send one without resetting
    // their 60 s timeout, as does the SDK client given only onprogress.
    const withToken = (await s.client.callTool(
      { name: 'wait_for_event', arguments: { timeout_s: 120 } },
      undefined,
      {
        onprogress: () => undefined,
      },
    )) as CallToolResult;
    expect(withToken.isError).toBe(true);
    expect(textOf(withToken)).toMatch(/timeout_s: at most 45 seconds on this server/);
    expect(feedOf(h).waiting).toBe(0);
  });

  it('waits longer when the server opts in (RMK_MAX_WAIT_S), with progress every 10 s', async () => {
    h = startApp(ArmServer, { env: { RMK_MAX_WAIT_S: '120' } });
    const s = await h.session();
    const progress: number[] = [];
    const long = s.client.callTool({ name: 'wait_for_event', arguments: { timeout_s: 120 } }, undefined, {
      onprogress: (p) => progress.push(p.progress),
      resetTimeoutOnProgress: true,
    });
    await until(() => feedOf(h!).waiting === 1);
    for (let i = 0; i < 12; i += 1) await h.clock.advance(10_000);
    expect(JSON.parse(textOf((await long) as CallToolResult))).toEqual({ timeout: true, cursor: 0 });
    expect(progress).toEqual([10, 20, 30, 40, 50, 60, 70, 80, 90, 100, 110]);
    const over = await s.call('wait_for_event', { timeout_s: 121 });
    expect(textOf(over)).toMatch(/timeout_s: at most 120 seconds on this server/);
    const tooLong = await s.call('wait_for_event', { timeout_s: 3601 });
    expect(tooLong.isError).toBe(true);
    expect(textOf(tooLong)).toMatch(
      /timeout_s must be at most 3600 seconds; to wait longer, call again with since/,
    );
  });

  it('a server maximum under 25 s is also the default wait', async () => {
    h = startApp(ArmServer, { maxWaitS: 5 });
    const s = await h.session();
    const waiting = await waitInBackground(h, s, {});
    await h.clock.advance(5_000);
    expect(await waiting.result).toEqual({ timeout: true, cursor: 0 });
  });

  it('returns a lost entry when the start cursor was overwritten', async () => {
    h = startApp(ArmServer, { eventBuffer: 2 });
    const s = await h.session();
    const id = await running(h, s);
    for (let p = 1; p <= 5; p += 1) await h.server.control(id).ctx.progress({ percent: p });
    expect(await s.json('wait_for_event', { type: 'task_done', timeout_s: 0 })).toEqual({
      timeout: false,
      entry: { cursor: 3, kind: 'lost', count: 3 },
      cursor: 3,
    });
  });

  it('a wait for a task that already ended returns at once with its TaskInfo', async () => {
    h = startApp(ArmServer);
    const s = await h.session();
    const id = await running(h, s);
    h.server.control(id).finish({ arrived: true });
    await until(() => h!.app.taskManager.get(id)?.state === 'succeeded');
    await s.json('get_events');
    // a since-less wait for the task starts before its first entry: it sees the task_done entry,
    // every time
    for (let i = 0; i < 2; i += 1) {
      expect(await s.json('wait_for_event', { type: 'zone_entered', task_id: id })).toMatchObject({
        entry: { event: { type: 'task_done', payload: { result: { arrived: true } } } },
      });
    }
    // a wait after task_done: the task has ended, so it says so
    expect(await s.json('wait_for_event', { task_id: id, since: 1, timeout_s: 45 })).toMatchObject({
      timeout: false,
      task_ended: { task_id: id, state: 'succeeded', result: { arrived: true } },
      cursor: 1,
    });
  });

  it('names unknown types and tasks', async () => {
    h = startApp(ArmServer);
    const s = await h.session();
    const badType = await s.call('wait_for_event', { type: 'zone_entred' });
    expect(badType.isError).toBe(true);
    expect(textOf(badType)).toMatch(
      /type: "zone_entred" is not an event or trigger type; use one of .*zone_entered/,
    );
    const badTask = await s.call('wait_for_event', { task_id: 'arm-000000' });
    expect(textOf(badTask)).toMatch(/task_id: no task "arm-000000" on this server; list_tasks/);
  });

  it('ends promptly when the request is cancelled or the session closes', async () => {
    h = startApp(ArmServer);
    const s = await h.session();
    const controller = new AbortController();
    const cancelled = s.client.callTool({ name: 'wait_for_event', arguments: { timeout_s: 45 } }, undefined, {
      signal: controller.signal,
    });
    await until(() => feedOf(h!).waiting === 1);
    controller.abort('user cancelled');
    await expect(cancelled).rejects.toThrow();
    await until(() => feedOf(h!).waiting === 0);
    const closing = await h.session();
    void closing.call('wait_for_event', { timeout_s: 45 }).catch(() => undefined);
    await until(() => feedOf(h!).waiting === 1);
    await closing.close();
    await until(() => feedOf(h!).waiting === 0);
    expect(h.clock.pending).toBe(0);
  });

  it('sends progress every 10 s while waiting when the caller asked for progress', async () => {
    h = startApp(ArmServer);
    const s = await h.session();
    const progress: number[] = [];
    const pending = s.client.callTool({ name: 'wait_for_event', arguments: { timeout_s: 25 } }, undefined, {
      onprogress: (p) => progress.push(p.progress),
      timeout: 60_000,
    });
    await until(() => feedOf(h!).waiting === 1);
    await h.clock.advance(25_000);
    const result = (await pending) as CallToolResult;
    expect(JSON.parse(textOf(result))).toEqual({ timeout: true, cursor: 0 });
    expect(progress).toEqual([10, 20]);
  });

  it('ends waits when the server shuts down', async () => {
    h = startApp(ArmServer);
    const s = await h.session();
    const pending = s.call('wait_for_event', { timeout_s: 45 }).catch((err: unknown) => err);
    await until(() => feedOf(h!).waiting === 1);
    await h.app.close({ timeoutMs: 100 });
    await pending;
    expect(feedOf(h).waiting).toBe(0);
  });
});

describe('configuration', () => {
  it('RMK_EVENT_FEED=0 (or eventFeed: false) removes the feed tools', async () => {
    h = startApp(ArmServer, { env: { RMK_EVENT_FEED: '0' } });
    const s = await h.session();
    const names = (await s.client.listTools()).tools.map((t) => t.name);
    expect(names).not.toContain('get_events');
    expect(names).not.toContain('wait_for_event');
    expect(eventFeedOf(h.app)).toBeUndefined();
    expect(bootstrap(ArmServer, { env: {}, eventFeed: false }).registry.get('get_events')).toBeUndefined();
  });

  it('fails fast on a bad RMK_EVENT_BUFFER or eventBuffer', () => {
    expect(() => bootstrap(ArmServer, { env: { RMK_EVENT_BUFFER: 'lots' } })).toThrow(
      /RMK_EVENT_BUFFER: "lots" is not valid; use a whole number of entries from 1 to 100000 \(default 500\)/,
    );
    expect(() => bootstrap(ArmServer, { env: { RMK_EVENT_BUFFER: '0' } })).toThrow(/RMK_EVENT_BUFFER/);
    expect(() => bootstrap(ArmServer, { env: {}, eventBuffer: 2.5 })).toThrow(/^eventBuffer: 2\.5/);
    expect(() => bootstrap(ArmServer, { env: { RMK_EVENT_FEED: 'nah' } })).toThrow(/RMK_EVENT_FEED/);
    expect(eventFeedOf(bootstrap(ArmServer, { env: {} }))?.capacity).toBe(500);
  });

  it('fails fast on a bad RMK_MAX_WAIT_S or maxWaitS, naming it and the valid range', () => {
    expect(() => bootstrap(ArmServer, { env: { RMK_MAX_WAIT_S: '5m' } })).toThrow(
      /RMK_MAX_WAIT_S: "5m" is not valid; use a whole number of seconds from 1 to 3600 \(default 45\)/,
    );
    expect(() => bootstrap(ArmServer, { env: { RMK_MAX_WAIT_S: '0' } })).toThrow(/RMK_MAX_WAIT_S/);
    expect(() => bootstrap(ArmServer, { env: { RMK_MAX_WAIT_S: '3601' } })).toThrow(/RMK_MAX_WAIT_S/);
    expect(() => bootstrap(ArmServer, { env: { RMK_MAX_WAIT_S: '60' }, maxWaitS: 0.5 })).toThrow(
      /^maxWaitS: 0\.5 is not valid/,
    );
  });
});
