import { ConfigError } from '@robot-mcp-kit/core';
import {
  createEventReceiver,
  type EventReceiver,
  InMemorySeqStateStore,
  type SeqBegin,
  type SeqGap,
  type SeqStateStore,
} from '@robot-mcp-kit/receiver';
import { type Running, SECRETS, listen, makeEvent, postEvent } from '../receiver-test.helpers.js';

describe('event receiver with a shared seq state (seqState.store)', () => {
  let running: { receiver: EventReceiver; server: Running }[] = [];
  let delivered: { seq: number; late: boolean }[];
  let gaps: SeqGap[];

  const start = async (store: SeqStateStore): Promise<string> => {
    const receiver = createEventReceiver({
      secrets: SECRETS,
      seqState: { store },
      onEvent: (event, context) => {
        delivered.push({ seq: event.seq, late: context.late });
      },
      onGap: (gap) => {
        gaps.push(gap);
      },
    });
    const server = await listen(receiver.handler);
    running.push({ receiver, server });
    return server.url;
  };

  beforeEach(() => {
    delivered = [];
    gaps = [];
  });

  afterEach(async () => {
    for (const { receiver, server } of running) {
      await server.close();
      await receiver.close();
    }
    running = [];
  });

  it('two receivers sharing the store see alternating seqs as contiguous and report a real gap once', async () => {
    const store = new InMemorySeqStateStore();
    const urls = [await start(store), await start(store)];
    for (const seq of [1, 2, 3, 4, 6, 7, 8]) {
      const answer = await postEvent(urls[seq % 2]!, makeEvent({ task_id: 'slee-shared', seq }));
      expect(answer.status).toBe(200);
    }
    expect(gaps).toEqual([{ task_id: 'slee-shared', server: 'sleeper', expected: 5, got: 6 }]);
    expect((await postEvent(urls[0]!, makeEvent({ task_id: 'slee-shared', seq: 5 }))).status).toBe(200);
    expect(delivered.at(-1)).toEqual({ seq: 5, late: true });
    expect(gaps).toHaveLength(1);
  });

  it('counts coalesced seqs named by a marker, as the in-memory tracker does', async () => {
    const url = await start(new InMemorySeqStateStore());
    await postEvent(url, makeEvent({ task_id: 'slee-co', seq: 1 }));
    const marker = makeEvent({
      task_id: 'slee-co',
      seq: 5,
      payload: { percent: 50, rvc_coalesced_seqs: [[2, 4]] },
    });
    expect((await postEvent(url, marker)).status).toBe(200);
    expect(gaps).toEqual([]);
    expect(running[0]!.receiver.stats().coalesced).toBe(3);
  });

  it('honours a marker on a terminal event with a shared store too', async () => {
    const url = await start(new InMemorySeqStateStore());
    await postEvent(url, makeEvent({ task_id: 'slee-end', seq: 1 }));
    const done = makeEvent({
      task_id: 'slee-end',
      seq: 4,
      type: 'task_done',
      payload: { result: {}, rvc_coalesced_seqs: [[2, 3]] },
    });
    expect((await postEvent(url, done)).status).toBe(200);
    expect(gaps).toEqual([]);
    expect(running[0]!.receiver.stats()).toMatchObject({ coalesced: 2, gaps: 0 });
    expect(running[0]!.receiver.openTasks()).toEqual([]);
  });

  it('refuses an event with 503 + Retry-After when the store cannot answer, without delivering it', async () => {
    const down: SeqStateStore = {
      begin: (): SeqBegin => ({ state: 'unavailable', retryAfterS: 7 }),
      commit: () => 0,
    };
    const url = await start(down);
    const answer = await postEvent(url, makeEvent({ task_id: 'slee-down', seq: 1 }));
    expect(answer.status).toBe(503);
    expect(answer.headers['retry-after']).toBe('7');
    expect(answer.json).toEqual({ error: 'seq_state_unavailable' });
    expect(delivered).toEqual([]);
    expect(running[0]!.receiver.stats().seqStateUnavailable).toBe(1);
  });

  it('answers 500 (the poster retries) when the store throws, without delivering or hanging', async () => {
    const broken: SeqStateStore = {
      begin: () => Promise.reject(new Error('store bug')),
      commit: () => 0,
    };
    const url = await start(broken);
    const answer = await postEvent(url, makeEvent({ task_id: 'slee-broken', seq: 1 }));
    expect(answer.status).toBe(500);
    expect(answer.json).toEqual({ error: 'delivery_failed' });
    expect(delivered).toEqual([]);
  });

  it('rejects a store that is not a SeqStateStore, and inOrder with a shared store, by name', () => {
    const onEvent = (): void => undefined;
    expect(() =>
      createEventReceiver({ secrets: SECRETS, onEvent, seqState: { store: {} as SeqStateStore } }),
    ).toThrow(ConfigError);
    expect(() =>
      createEventReceiver({ secrets: SECRETS, onEvent, seqState: { store: {} as SeqStateStore } }),
    ).toThrow(/seqState\.store/);
    expect(() =>
      createEventReceiver({
        secrets: SECRETS,
        onEvent,
        seqState: { store: new InMemorySeqStateStore() },
        inOrder: { holdMs: 100 },
      }),
    ).toThrow(/inOrder: cannot be combined with seqState\.store/);
  });
});
