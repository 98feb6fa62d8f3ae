import Fastify, { type FastifyInstance } from 'fastify';
import { type TaskEvent } from '@robot-mcp-kit/core';
import { MemoryLogger } from '@robot-mcp-kit/core/testing';
import { createEventReceiver, fastifyEventReceiver } from '@robot-mcp-kit/receiver';
import { SECRETS, makeEvent, postEvent, send, signedHeaders, waitFor } from '../receiver-test.helpers.js';

describe('fastifyEventReceiver', () => {
  let app: FastifyInstance | undefined;
  afterEach(async () => {
    await app?.close();
    app = undefined;
  });

  async function serve(instance: FastifyInstance): Promise<string> {
    app = instance;
    const address = await instance.listen({ port: 0, host: '127.0.0.1' });
    return `${address}/api/agent/events`;
  }

  it('receives, verifies and dedupes events, and leaves the app its JSON parser', async () => {
    const delivered: TaskEvent[] = [];
    const instance = Fastify();
    await instance.register(fastifyEventReceiver, {
      secrets: SECRETS,
      onEvent: (e) => void delivered.push(e),
    });
    instance.post('/echo', async (request) => request.body);
    const url = await serve(instance);
    const event = makeEvent();
    const first = await postEvent(url, event);
    expect(first.status).toBe(200);
    expect(first.json).toEqual({ ok: true });
    expect(first.headers['content-type']).toBe('application/json; charset=utf-8');
    expect((await postEvent(url, event)).json).toEqual({ ok: true, duplicate: true });
    expect(delivered).toHaveLength(1);
    const echo = await send(url.replace('/api/agent/events', '/echo'), {
      headers: { 'content-type': 'application/json' },
      body: '{"a":1}',
    });
    expect(echo.json).toEqual({ a: 1 });
  });

  it.each([
    ['405', { method: 'GET' }, 405],
    ['405 for PUT', { method: 'PUT', headers: { 'content-type': 'application/json' }, body: '{}' }, 405],
    ['415', { headers: { 'content-type': 'text/plain' }, body: 'hi' }, 415],
    ['415 without a content type', { body: '{}' }, 415],
    ['413', { headers: { 'content-type': 'application/json' }, body: 'x'.repeat(5000) }, 413],
    ['401', { headers: { 'content-type': 'application/json' }, body: '{}' }, 401],
    ['400', { headers: signedHeaders('{"a":'), body: '{"a":' }, 400],
  ])('answers %s through Fastify', async (_name, request, status) => {
    const instance = Fastify();
    await instance.register(fastifyEventReceiver, {
      path: '/api/agent/events',
      secrets: SECRETS,
      onEvent: () => undefined,
      maxBodyBytes: 4096,
    });
    const url = await serve(instance);
    const answer = await send(url, request);
    expect(answer.status).toBe(status);
    expect(answer.json).toHaveProperty('error');
  });

  it('answers 413 as soon as a chunked body passes the limit', async () => {
    const instance = Fastify();
    await instance.register(fastifyEventReceiver, {
      secrets: SECRETS,
      onEvent: () => undefined,
      maxBodyBytes: 4096,
    });
    const url = await serve(instance);
    const answer = await send(url, {
      headers: { 'content-type': 'application/json', 'transfer-encoding': 'chunked' },
      chunks: [Buffer.alloc(3000, 0x20), Buffer.alloc(3000, 0x20)],
      endAfterResponse: true,
    });
    expect(answer.status).toBe(413);
    expect(answer.json).toEqual({ error: 'payload_too_large', max_bytes: 4096 });
  });

  it('uses an existing receiver at a custom path, and does not close it with the app', async () => {
    const delivered: TaskEvent[] = [];
    const receiver = createEventReceiver({ secrets: SECRETS, onEvent: (e) => void delivered.push(e) });
    const instance = Fastify();
    await instance.register(fastifyEventReceiver, { receiver, path: '/hooks/rvc' });
    const url = (await serve(instance)).replace('/api/agent/events', '/hooks/rvc');
    expect((await postEvent(url, makeEvent())).status).toBe(200);
    await instance.close();
    app = undefined;
    expect(delivered).toHaveLength(1);
    const body = JSON.stringify(makeEvent());
    const response = await receiver.receive({
      method: 'POST',
      headers: signedHeaders(body),
      body: Buffer.from(body),
    });
    expect(response.status).toBe(200);
    await receiver.close();
  });

  it('closes the receiver it created when the app closes', async () => {
    const instance = Fastify();
    const logger = new MemoryLogger();
    await instance.register(fastifyEventReceiver, {
      secrets: SECRETS,
      onEvent: () => undefined,
      inOrder: { holdMs: 60_000 },
      logger,
    });
    const url = await serve(instance);
    const held = postEvent(url, makeEvent({ seq: 3 }));
    await waitFor(() => logger.at('debug', 'holding').length === 1);
    await instance.close();
    app = undefined;
    expect((await held).status).toBe(200);
  });
});
