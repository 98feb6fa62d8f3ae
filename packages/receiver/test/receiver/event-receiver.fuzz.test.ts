import fc from 'fast-check';
import { signatureHeader } from '@robot-mcp-kit/core';
import { createEventReceiver, type EventReceiver } from '@robot-mcp-kit/receiver';
import {
  OTHER_SECRET,
  type Running,
  SECRET,
  SECRETS,
  listen,
  makeEvent,
  postEvent,
  send,
  signedHeaders,
} from '../receiver-test.helpers.js';

const MAX_BODY = 2048;

/** A request built from a valid one by one mutation that makes it invalid. */
interface BadRequest {
  readonly kind: string;
  readonly method: string;
  readonly headers: Record<string, string>;
  readonly body: Buffer;
}

const JSONISH = /^\s*application\/(?:json|[^;]*\+json)\s*(?:;|$)/i;

/** A valid event and its signed headers; the timestamp is now (real clock). */
function valid(seq: number): { body: Buffer; headers: Record<string, string> } {
  const body = Buffer.from(JSON.stringify(makeEvent({ seq, task_id: `fuzz-${seq}` })));
  return { body, headers: signedHeaders(body) };
}

/** Re-signs `body` correctly (for mutations that must get past the signature). */
function resigned(body: Buffer, server = 'sleeper', secret = SECRET): Record<string, string> {
  return signedHeaders(body, { server, secret });
}

const headerName = fc.constantFrom('content-type', 'x-rvc-server', 'x-rvc-timestamp', 'x-rvc-signature');
const token = fc.stringMatching(/^[A-Za-z0-9 ._=+/-]{0,40}$/);

const mutation: fc.Arbitrary<(seq: number) => BadRequest> = fc.oneof(
  // Flip one byte of the body, keep the signature of the original.
  fc.record({ at: fc.nat(), bit: fc.integer({ min: 0, max: 7 }) }).map(({ at, bit }) => (seq: number) => {
    const { body, headers } = valid(seq);
    const copy = Buffer.from(body);
    const i = at % copy.length;
    copy[i] = (copy[i] as number) ^ (1 << bit);
    return { kind: 'flip', method: 'POST', headers, body: copy };
  }),
  // Truncate or extend the body.
  fc
    .record({ cut: fc.nat(), extra: fc.string({ minLength: 1, maxLength: 10 }) })
    .map(({ cut, extra }) => (seq: number) => {
      const { body, headers } = valid(seq);
      const changed =
        cut % 2 === 0 ? body.subarray(0, cut % body.length) : Buffer.concat([body, Buffer.from(extra)]);
      return { kind: 'length', method: 'POST', headers, body: changed };
    }),
  // Drop a required header.
  headerName.map((name) => (seq: number) => {
    const { body, headers } = valid(seq);
    const copy = { ...headers };
    delete copy[name];
    return { kind: `drop ${name}`, method: 'POST', headers: copy, body };
  }),
  // Replace a header by random text (the content type only by a non-JSON one).
  fc.tuple(headerName, token).map(([name, value]) => (seq: number) => {
    const { body, headers } = valid(seq);
    const replacement = name === 'content-type' && JSONISH.test(value) ? 'text/plain' : value;
    const same = headers[name]?.trim() === replacement.trim() || /^0\d/.test(replacement.trim());
    return {
      kind: `alter ${name}`,
      method: 'POST',
      headers: { ...headers, [name]: same ? 'x' : replacement },
      body,
    };
  }),
  // Random signatures, well-formed or not.
  fc
    .oneof(fc.stringMatching(/^[0-9a-f]{64}$/), fc.stringMatching(/^[0-9a-zA-Z]{0,70}$/))
    .map((hex) => (seq: number) => {
      const { body, headers } = valid(seq);
      return {
        kind: 'signature',
        method: 'POST',
        headers: { ...headers, 'x-rvc-signature': `sha256=${hex}` },
        body,
      };
    }),
  // Huge, negative or off-by-more-than-the-skew timestamps, correctly signed.
  fc
    .oneof(
      fc.bigInt({ min: 10n ** 12n, max: 10n ** 30n }).map(String),
      fc.integer({ min: -1e9, max: 0 }).map(String),
      fc.integer({ min: 301, max: 1e8 }).map((d) => String(Math.floor(Date.now() / 1000) + d)),
      fc.integer({ min: 301, max: 1e8 }).map((d) => String(Math.floor(Date.now() / 1000) - d)),
      fc.constantFrom('1e9', '0x10', ' ', '1.5', 'NaN'),
    )
    .map((timestamp) => (seq: number) => {
      const { body } = valid(seq);
      const headers = {
        ...resigned(body),
        'x-rvc-timestamp': timestamp,
        'x-rvc-signature': signatureHeader(SECRET, timestamp.trim() || '0', body),
      };
      return { kind: 'timestamp', method: 'POST', headers, body };
    }),
  // Another server's name, or this one signing for another.
  fc.boolean().map((wrongSecret) => (seq: number) => {
    const { body } = valid(seq);
    const headers = wrongSecret
      ? resigned(body, 'navigation', SECRET)
      : resigned(body, 'navigation', OTHER_SECRET);
    return { kind: wrongSecret ? 'wrong secret' : 'server mismatch', method: 'POST', headers, body };
  }),
  // Correctly signed, but not a TaskEvent.
  fc
    .oneof(
      fc.string({ maxLength: 50 }),
      fc.json({ maxDepth: 2 }),
      fc.constantFrom('', 'null', '[]', '{}', '{"seq": "1"}', '\u0000', '{"a":1}{"b":2}'),
    )
    .map((text) => (_seq: number) => {
      const body = Buffer.from(text);
      return { kind: 'not an event', method: 'POST', headers: resigned(body), body };
    }),
  // A valid event with one field broken, correctly signed.
  fc
    .tuple(
      fc.constantFrom(
        'event_id',
        'task_id',
        'server',
        'tool',
        'type',
        'seq',
        'ts',
        'payload',
        'schema_version',
      ),
      fc.oneof(
        fc.constant(undefined),
        fc.constant(null),
        fc.integer({ max: 0 }),
        fc.constant(''),
        fc.constant([]),
      ),
    )
    .map(([field, value]) => (seq: number) => {
      const event: Record<string, unknown> = { ...makeEvent({ seq }).toJSON() };
      if (value === undefined && field !== 'schema_version') delete event[field];
      else event[field] = value ?? null;
      const body = Buffer.from(JSON.stringify(event));
      return { kind: `bad ${field}`, method: 'POST', headers: resigned(body), body };
    }),
  // Non-JSON content types, correctly signed.
  fc
    .constantFrom(
      'text/plain',
      'application/xml',
      'multipart/form-data; boundary=x',
      'application/json; charset=utf-16',
      'json',
    )
    .map((type) => (seq: number) => {
      const { body, headers } = valid(seq);
      return { kind: 'content type', method: 'POST', headers: { ...headers, 'content-type': type }, body };
    }),
  // Other methods.
  fc.constantFrom('GET', 'PUT', 'PATCH', 'DELETE', 'OPTIONS').map((method) => (seq: number) => {
    const { body, headers } = valid(seq);
    return { kind: 'method', method, headers, body };
  }),
  // Too big, correctly signed.
  fc.integer({ min: MAX_BODY + 1, max: MAX_BODY * 4 }).map((size) => (seq: number) => {
    const event = makeEvent({ seq, payload: { pad: 'x'.repeat(size) } });
    const body = Buffer.from(JSON.stringify(event));
    return { kind: 'too big', method: 'POST', headers: resigned(body), body };
  }),
);

describe('event receiver under random bad input', () => {
  let receiver: EventReceiver;
  let server: Running;
  let delivered: string[];

  beforeAll(async () => {
    delivered = [];
    receiver = createEventReceiver({
      secrets: SECRETS,
      maxBodyBytes: MAX_BODY,
      onEvent: (event) => {
        delivered.push(event.task_id);
      },
    });
    server = await listen(receiver.handler);
  });

  afterAll(async () => {
    await receiver.close();
    await server.close();
  });

  it('never answers 2xx to an invalid request, and keeps serving valid ones', async () => {
    let seq = 0;
    const seen = new Set<string>();
    await fc.assert(
      fc.asyncProperty(mutation, async (make) => {
        seq += 1;
        const bad = make(seq);
        seen.add(bad.kind.split(' ')[0] as string);
        const answer = await send(server.url, {
          method: bad.method,
          headers: { ...bad.headers, 'content-length': bad.body.length },
          body: bad.body,
        });
        if (answer.status < 400 || answer.status >= 500) {
          throw new Error(`${bad.kind}: got ${answer.status} ${answer.text}`);
        }
        if (seq % 50 === 0) {
          const ok = await postEvent(server.url, makeEvent({ seq, task_id: `ok-${seq}` }));
          if (ok.status !== 200) throw new Error(`a valid request after ${seq} bad ones got ${ok.status}`);
        }
      }),
      { numRuns: 400 },
    );
    expect(delivered.every((task) => task.startsWith('ok-'))).toBe(true);
    expect(delivered).toHaveLength(8);
    expect(seen.size).toBeGreaterThanOrEqual(10);
    const final = await postEvent(server.url, makeEvent({ task_id: 'ok-final' }));
    expect(final.status).toBe(200);
    const stats = receiver.stats();
    expect(Object.keys(stats.byStatus).sort()).toEqual(['200', '400', '401', '405', '413', '415']);
  });
});
