import { connect } from 'node:net';
import { ConfigError, type TaskEvent } from '@robot-mcp-kit/core';
import { ManualClock, MemoryLogger } from '@robot-mcp-kit/core/testing';
import { HttpEventTransport } from '@robot-mcp-kit/core/transport';
import { createEventReceiver, type EventContext, type EventReceiver } from '@robot-mcp-kit/receiver';
import {
  type Running,
  SECRET,
  SECRETS,
  listen,
  makeEvent,
  postEvent,
  send,
  signedHeaders,
  waitFor,
} from '../receiver-test.helpers.js';

describe('createEventReceiver over node:http', () => {
  let receiver: EventReceiver;
  let server: Running;
  let delivered: { event: TaskEvent; context: EventContext }[];
  let logger: MemoryLogger;

  beforeEach(async () => {
    delivered = [];
    logger = new MemoryLogger();
    receiver = createEventReceiver({
      secrets: SECRETS,
      onEvent: (event, context) => {
        delivered.push({ event, context });
      },
      maxBodyBytes: 4096,
      logger,
    });
    server = await listen(receiver.handler);
  });

  afterEach(async () => {
    await receiver.close();
    await server.close();
  });

  it('delivers an event signed by the real HttpEventTransport and answers 200 {ok:true}', async () => {
    const transport = new HttpEventTransport({ url: server.url, secret: SECRET, serverName: 'sleeper' });
    const event = makeEvent();
    const outcome = await transport.send({ event, body: JSON.stringify(event), attempt: 1 });
    await transport.close();
    expect(outcome).toEqual({ ok: true, status: 200 });
    expect(delivered).toHaveLength(1);
    expect(delivered[0]?.event.toJSON()).toEqual(event.toJSON());
    expect(delivered[0]?.context).toEqual({ server: 'sleeper', late: false });
  });

  it('answers 200 {ok:true} with JSON headers', async () => {
    const answer = await postEvent(server.url, makeEvent());
    expect(answer.status).toBe(200);
    expect(answer.json).toEqual({ ok: true });
    expect(answer.headers['content-type']).toBe('application/json; charset=utf-8');
  });

  it('picks the secret by X-RVC-Server', async () => {
    const event = makeEvent({ server: 'navigation', task_id: 'navi-000001' });
    const answer = await postEvent(server.url, event, { server: 'navigation', secret: SECRETS.navigation });
    expect(answer.status).toBe(200);
    // The other server's secret does not open it.
    const forged = makeEvent({ server: 'navigation', task_id: 'navi-000002' });
    const refused = await postEvent(server.url, forged, { server: 'navigation', secret: SECRET });
    expect(refused.status).toBe(401);
    expect(delivered).toHaveLength(1);
  });

  it.each([
    ['application/json; charset=utf-8'],
    ['application/json;charset="UTF8"'],
    ['Application/JSON'],
    ['application/vnd.rvc.event+json'],
  ])('accepts the content type %s', async (contentType) => {
    const answer = await postEvent(server.url, makeEvent(), { headers: { 'content-type': contentType } });
    expect(answer.status).toBe(200);
  });

  it.each([['GET'], ['PUT'], ['DELETE'], ['PATCH']])('answers 405 to %s with Allow: POST', async (method) => {
    const body = JSON.stringify(makeEvent());
    const headers = { ...signedHeaders(body), 'content-length': Buffer.byteLength(body) };
    const answer = await send(server.url, { method, headers, body });
    expect(answer.status).toBe(405);
    expect(answer.headers.allow).toBe('POST');
    expect(answer.json).toEqual({ error: 'method_not_allowed' });
  });

  it.each([
    ['text/plain', 'not_json'],
    ['application/x-www-form-urlencoded', 'not_json'],
    ['application/jsonx', 'not_json'],
    ['application/json; charset=latin1', 'charset_not_utf8'],
    [undefined, 'missing_content_type'],
  ])('answers 415 to content type %s', async (contentType, reason) => {
    const body = JSON.stringify(makeEvent());
    const headers: Record<string, string> = signedHeaders(body);
    if (contentType === undefined) delete headers['content-type'];
    else headers['content-type'] = contentType;
    const answer = await send(server.url, { headers, body });
    expect(answer.status).toBe(415);
    expect(answer.json).toEqual({ error: 'unsupported_media_type', reason });
    expect(delivered).toHaveLength(0);
  });

  it('answers 415 to a compressed body', async () => {
    const body = JSON.stringify(makeEvent());
    const answer = await send(server.url, {
      headers: { ...signedHeaders(body), 'content-encoding': 'gzip' },
      body,
    });
    expect(answer.status).toBe(415);
    expect(answer.json).toMatchObject({ reason: 'content_encoding' });
  });

  it('answers 413 to a declared Content-Length over the limit without reading the body', async () => {
    const answer = await send(server.url, {
      headers: { ...signedHeaders('{}'), 'content-length': 10_000_000 },
      endAfterResponse: true,
    });
    expect(answer.status).toBe(413);
    expect(answer.json).toEqual({ error: 'payload_too_large', max_bytes: 4096 });
    expect(answer.headers.connection).toBe('close');
  });

  it('answers 413 as soon as a chunked body passes the limit, and closes the connection', async () => {
    const answer = await send(server.url, {
      headers: { ...signedHeaders('{}'), 'transfer-encoding': 'chunked' },
      chunks: [Buffer.alloc(3000, 0x20), Buffer.alloc(3000, 0x20)],
      endAfterResponse: true,
    });
    expect(answer.status).toBe(413);
    expect(answer.headers.connection).toBe('close');
    expect(receiver.stats().byStatus[413]).toBe(1);
  });

  it.each([
    ['unknown server', { 'x-rvc-server': 'intruder' }, 'unknown_server'],
    ['missing server', { 'x-rvc-server': undefined }, 'unknown_server'],
    ['missing signature', { 'x-rvc-signature': undefined }, 'missing_signature'],
    ['garbled signature', { 'x-rvc-signature': 'sha256=zz' }, 'bad_signature'],
    ['wrong signature', { 'x-rvc-signature': `sha256=${'ab'.repeat(32)}` }, 'bad_signature'],
    ['missing timestamp', { 'x-rvc-timestamp': undefined }, 'missing_timestamp'],
    ['non-numeric timestamp', { 'x-rvc-timestamp': 'soon' }, 'bad_timestamp'],
    ['huge timestamp', { 'x-rvc-timestamp': '99999999999999999999' }, 'bad_timestamp'],
  ])('answers 401 for a %s', async (_name, change, reason) => {
    const body = JSON.stringify(makeEvent());
    const headers: Record<string, string> = signedHeaders(body);
    for (const [key, value] of Object.entries(change)) {
      if (value === undefined) delete headers[key];
      else headers[key] = value;
    }
    const answer = await send(server.url, { headers, body });
    expect(answer.status).toBe(401);
    expect(answer.json).toEqual({ error: 'unauthorized', reason });
    expect(delivered).toHaveLength(0);
  });

  it.each([
    ['stale', -301],
    ['future', 301],
  ])('answers 401 for a %s timestamp, even correctly signed', async (_name, offsetS) => {
    const body = JSON.stringify(makeEvent());
    const answer = await send(server.url, {
      headers: signedHeaders(body, { nowMs: Date.now() + offsetS * 1000 }),
      body,
    });
    expect(answer.status).toBe(401);
    expect(answer.json).toEqual({ error: 'unauthorized', reason: 'timestamp_skew' });
  });

  it('answers 401 for a body changed after signing', async () => {
    const body = JSON.stringify(makeEvent());
    const tampered = body.replace('"percent":10', '"percent":99');
    const answer = await send(server.url, { headers: signedHeaders(body), body: tampered });
    expect(answer.status).toBe(401);
    expect(answer.json).toMatchObject({ reason: 'bad_signature' });
  });

  it('answers 400 to malformed JSON, after checking its signature', async () => {
    const answer = await postEvent(server.url, '{"schema_version": 1,');
    expect(answer.status).toBe(400);
    expect(answer.json).toMatchObject({ error: 'invalid_event', issues: [{ field: '(body)' }] });
  });

  it('answers 400 listing every field that fails validation', async () => {
    const bad = { ...makeEvent().toJSON(), seq: 0, type: 'exploded', ts: 'yesterday' } as Record<
      string,
      unknown
    >;
    delete bad.task_id;
    const answer = await postEvent(server.url, JSON.stringify(bad));
    expect(answer.status).toBe(400);
    const fields = (answer.json?.issues as { field: string; problems: string[] }[])
      .map((i) => i.field)
      .sort();
    expect(fields).toEqual(['seq', 'task_id', 'ts', 'type']);
    expect(delivered).toHaveLength(0);
  });

  it('answers 400 when the body names another server than X-RVC-Server', async () => {
    const event = makeEvent({ server: 'navigation' });
    const answer = await postEvent(server.url, event, { server: 'sleeper', secret: SECRET });
    expect(answer.status).toBe(400);
    expect(answer.json).toMatchObject({ error: 'invalid_event', issues: [{ field: 'server' }] });
  });

  it('checks in order: method, content type, size, signature, JSON', async () => {
    const big = Buffer.alloc(5000, 0x7b);
    const bad = { 'x-rvc-server': 'intruder' };
    // A GET with everything else wrong is a 405.
    expect(
      (await send(server.url, { method: 'GET', headers: { ...bad, 'content-type': 'text/plain' } })).status,
    ).toBe(405);
    // A too-big unsigned text body is a 415.
    expect(
      (await send(server.url, { headers: { ...bad, 'content-type': 'text/plain' }, body: big })).status,
    ).toBe(415);
    // A too-big unsigned JSON body is a 413.
    expect(
      (await send(server.url, { headers: { ...bad, 'content-type': 'application/json' }, body: big })).status,
    ).toBe(413);
    // Unsigned malformed JSON is a 401: the parser never sees unauthenticated bytes.
    expect(
      (await send(server.url, { headers: { ...bad, 'content-type': 'application/json' }, body: '{' })).status,
    ).toBe(401);
  });

  it('never logs the secret or a whole signature', async () => {
    const body = JSON.stringify(makeEvent());
    const headers = signedHeaders(body, { secret: 'wrong-secret-wrong-secret' });
    await send(server.url, { headers, body });
    await postEvent(server.url, makeEvent(), { server: 'intruder' });
    const signature = (headers['x-rvc-signature'] as string).slice('sha256='.length);
    const logged = JSON.stringify(logger.entries);
    expect(logger.at('warn', 'not authenticated')).toHaveLength(2);
    expect(logged).not.toContain(SECRET);
    expect(logged).not.toContain('wrong-secret');
    expect(logged).not.toContain(signature.slice(0, 9));
    expect(logged).toContain(signature.slice(0, 8));
  });

  it('survives a client that hangs up in the middle of the body', async () => {
    const body = JSON.stringify(makeEvent());
    const headers = { ...signedHeaders(body), 'content-length': String(body.length) };
    const socket = connect(server.port, '127.0.0.1');
    await new Promise<void>((resolve) => socket.once('connect', resolve));
    const head = Object.entries(headers)
      .map(([k, v]) => `${k}: ${v}\r\n`)
      .join('');
    await new Promise<void>((resolve) =>
      socket.write(
        `POST /api/agent/events HTTP/1.1\r\nhost: 127.0.0.1\r\n${head}\r\n${body.slice(0, 20)}`,
        () => resolve(),
      ),
    );
    socket.destroy();
    await waitFor(() => logger.at('debug', 'aborted').length === 1);
    expect(delivered).toHaveLength(0);
    expect((await postEvent(server.url, makeEvent())).status).toBe(200);
  });

  it('counts every answer in stats()', async () => {
    await postEvent(server.url, makeEvent());
    await postEvent(server.url, makeEvent(), { server: 'intruder' });
    await send(server.url, { method: 'GET' });
    expect(receiver.stats()).toMatchObject({
      requests: 3,
      delivered: 1,
      byStatus: { 200: 1, 401: 1, 405: 1 },
    });
  });

  it('answers 503 after close() so posters retry later', async () => {
    await receiver.close();
    const answer = await postEvent(server.url, makeEvent());
    expect(answer.status).toBe(503);
    expect(answer.headers['retry-after']).toBe('1');
    expect(delivered).toHaveLength(0);
  });

  it('answers 500 when a body parser already consumed the stream', async () => {
    const judged = createEventReceiver({ secrets: SECRETS, onEvent: () => undefined, logger });
    const parsing = await listen((req, res) => {
      req.resume();
      req.on('end', () => judged.handler(req, res));
    });
    try {
      const answer = await postEvent(parsing.url, makeEvent());
      expect(answer.status).toBe(500);
      expect(answer.json).toMatchObject({ error: 'internal_error' });
      expect(logger.at('error', 'mount the event receiver before any body parser')).toHaveLength(1);
    } finally {
      await parsing.close();
    }
  });
});

describe('createEventReceiver options', () => {
  const onEvent = (): void => undefined;

  it.each([
    [{ secrets: {}, onEvent }, 'secrets'],
    [{ secrets: { a: '' }, onEvent }, 'secrets.a'],
    [{ secrets: null, onEvent }, 'secrets'],
    [{ secrets: SECRETS }, 'onEvent'],
    [{ secrets: SECRETS, onEvent, onGap: 3 }, 'onGap'],
    [{ secrets: SECRETS, onEvent, maxSkewS: -1 }, 'maxSkewS'],
    [{ secrets: SECRETS, onEvent, maxBodyBytes: 1.5 }, 'maxBodyBytes'],
    [{ secrets: SECRETS, onEvent, dedupe: { ttlS: 0 } }, 'dedupe.ttlS'],
    [{ secrets: SECRETS, onEvent, dedupe: { max: Number.NaN } }, 'dedupe.max'],
    [{ secrets: SECRETS, onEvent, dedupe: { maxBytes: 0.5 } }, 'dedupe.maxBytes'],
    [{ secrets: SECRETS, onEvent, dedupe: { store: {} } }, 'dedupe.store'],
    [{ secrets: SECRETS, onEvent, inOrder: {} }, 'inOrder.holdMs'],
    [{ secrets: SECRETS, onEvent, tracking: { maxTasks: 0 } }, 'tracking.maxTasks'],
  ])('rejects %j naming %s', (options, variable) => {
    expect(() => createEventReceiver(options as never)).toThrow(ConfigError);
    try {
      createEventReceiver(options as never);
    } catch (err) {
      expect((err as ConfigError).variable).toBe(variable);
    }
  });

  it('takes the secrets as a Map', async () => {
    const clock = new ManualClock();
    const receiver = createEventReceiver({ secrets: new Map([['sleeper', SECRET]]), onEvent, clock });
    const body = JSON.stringify(makeEvent());
    const response = await receiver.receive({
      method: 'POST',
      headers: signedHeaders(body, { nowMs: clock.now() }),
      body: Buffer.from(body),
    });
    expect(response.status).toBe(200);
  });

  it('warns when the dedupe TTL is shorter than twice the skew window', () => {
    const logger = new MemoryLogger();
    createEventReceiver({ secrets: SECRETS, onEvent, dedupe: { ttlS: 60 }, logger });
    expect(logger.at('warn', 'dedupe.ttlS')).toHaveLength(1);
  });
});
