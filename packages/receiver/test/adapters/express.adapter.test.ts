import { createServer } from 'node:http';
import express from 'express';
import { type TaskEvent } from '@robot-mcp-kit/core';
import { MemoryLogger } from '@robot-mcp-kit/core/testing';
import { createEventReceiver, expressEventReceiver } from '@robot-mcp-kit/receiver';
import {
  type Running,
  SECRETS,
  listenServer,
  makeEvent,
  postEvent,
  send,
  signedHeaders,
} from '../receiver-test.helpers.js';

describe('expressEventReceiver', () => {
  let running: Running | undefined;
  afterEach(async () => {
    await running?.close();
    running = undefined;
  });

  async function serve(app: express.Express): Promise<string> {
    running = await listenServer(createServer(app));
    return running.url;
  }

  it('receives, verifies and dedupes events on an Express app', async () => {
    const delivered: TaskEvent[] = [];
    const app = express();
    const handler = expressEventReceiver({ secrets: SECRETS, onEvent: (e) => void delivered.push(e) });
    app.all('/api/agent/events', handler);
    app.use(express.json());
    app.get('/health', (_req, res) => {
      res.json({ ok: true });
    });
    const url = await serve(app);
    const event = makeEvent();
    expect((await postEvent(url, event)).json).toEqual({ ok: true });
    expect((await postEvent(url, event)).json).toEqual({ ok: true, duplicate: true });
    expect(delivered).toHaveLength(1);
    expect(handler.receiver.stats().delivered).toBe(1);
    // The rest of the app keeps its own middleware.
    expect((await send(url.replace('/api/agent/events', '/health'), { method: 'GET' })).json).toEqual({
      ok: true,
    });
  });

  it.each([
    ['405', { method: 'GET' }, 405],
    ['415', { headers: { 'content-type': 'text/plain' }, body: 'hi' }, 415],
    ['413', { headers: { 'content-type': 'application/json' }, body: 'x'.repeat(5000) }, 413],
    ['401', { headers: { 'content-type': 'application/json' }, body: '{}' }, 401],
  ])('answers %s through Express', async (_name, request, status) => {
    const app = express();
    app.all(
      '/api/agent/events',
      expressEventReceiver({ secrets: SECRETS, onEvent: () => undefined, maxBodyBytes: 4096 }),
    );
    const url = await serve(app);
    expect((await send(url, request)).status).toBe(status);
  });

  it('accepts an existing receiver and a body parser that keeps req.rawBody', async () => {
    const delivered: TaskEvent[] = [];
    const receiver = createEventReceiver({ secrets: SECRETS, onEvent: (e) => void delivered.push(e) });
    const app = express();
    app.use(
      express.json({
        verify: (req, _res, buf) => {
          (req as unknown as { rawBody: Buffer }).rawBody = buf;
        },
      }),
    );
    app.post('/api/agent/events', expressEventReceiver(receiver));
    const url = await serve(app);
    // Key order and spacing survive: the signature is over the raw bytes, not a re-serialization.
    const body = `{ "payload": {"percent": 1},${JSON.stringify(makeEvent()).slice(1)}`;
    expect((await send(url, { headers: signedHeaders(body), body })).status).toBe(200);
    expect(delivered).toHaveLength(1);
    await receiver.close();
  });

  it('answers 500 and logs how to fix it when express.json() ate the body', async () => {
    const logger = new MemoryLogger();
    const app = express();
    app.use(express.json());
    app.post(
      '/api/agent/events',
      expressEventReceiver({ secrets: SECRETS, onEvent: () => undefined, logger }),
    );
    const url = await serve(app);
    const answer = await postEvent(url, makeEvent());
    expect(answer.status).toBe(500);
    expect(logger.at('error', 'before any body parser')).toHaveLength(1);
  });
});
