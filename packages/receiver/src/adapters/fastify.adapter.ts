import { type Readable } from 'node:stream';
import { createEventReceiver, type EventReceiver } from '../receiver/event-receiver.js';
import { hasBody } from '../receiver/node-http.handler.js';
import { type RawBody, readRequestBody } from '../receiver/request-body.reader.js';
import {
  type EventReceiverOptions,
  type HeaderBag,
  type ReceiverResponse,
} from '../receiver/receiver.types.js';

/** The spec's event endpoint (§3.1), the default route of the Fastify plugin. */
export const DEFAULT_EVENTS_PATH = '/api/agent/events';

/** The parts of a Fastify request the plugin reads (typed structurally: no dependency on fastify). */
export interface FastifyRequestLike {
  readonly method: string;
  readonly headers: HeaderBag;
  readonly body?: unknown;
}

/** The parts of a Fastify reply the plugin uses. */
export interface FastifyReplyLike {
  code(statusCode: number): FastifyReplyLike;
  headers(values: Record<string, string>): FastifyReplyLike;
  send(payload?: unknown): FastifyReplyLike;
}

/** The route the plugin registers. */
export interface FastifyRouteLike {
  method: string[];
  url: string;
  onRequest: (request: FastifyRequestLike, reply: FastifyReplyLike) => Promise<unknown>;
  handler: (request: FastifyRequestLike, reply: FastifyReplyLike) => Promise<unknown>;
}

/** The parts of a Fastify instance the plugin uses. */
export interface FastifyInstanceLike {
  removeAllContentTypeParsers(): unknown;
  addContentTypeParser(
    contentType: string,
    parser: (request: FastifyRequestLike, payload: Readable) => Promise<unknown>,
  ): unknown;
  route(options: FastifyRouteLike): unknown;
  addHook(name: 'preClose', hook: () => Promise<void>): unknown;
}

/**
 * Options of {@link fastifyEventReceiver}: the receiver options (a receiver is created, and
 * closed when the app closes), or an existing `receiver` (the caller closes it); `path`
 * defaults to `/api/agent/events`.
 */
export type FastifyEventReceiverOptions = { path?: string } & (
  { receiver: EventReceiver } | (EventReceiverOptions & { receiver?: undefined })
);

const METHODS = ['DELETE', 'GET', 'OPTIONS', 'PATCH', 'POST', 'PUT'];
const EMPTY: RawBody = { bytes: Buffer.alloc(0), complete: true };

/**
 * A Fastify plugin registering the receiver at `path` (all methods, so that it can answer 405).
 * Register it without `fastify-plugin` so that its raw-body content type parser stays
 * encapsulated: the rest of the app keeps Fastify's JSON parser.
 *
 * ```ts
 * await app.register(fastifyEventReceiver, { secrets, onEvent });
 * ```
 */
export async function fastifyEventReceiver(
  instance: FastifyInstanceLike,
  options: FastifyEventReceiverOptions,
): Promise<void> {
  const owned = options.receiver === undefined;
  const receiver = options.receiver === undefined ? createEventReceiver(options) : options.receiver;
  instance.removeAllContentTypeParsers();
  // Every content type reaches the raw reader: onRequest already answered 415 to non-JSON ones.
  instance.addContentTypeParser('*', (_request, payload) => readRequestBody(payload, receiver.maxBodyBytes));
  instance.route({
    method: METHODS,
    url: options.path ?? DEFAULT_EVENTS_PATH,
    onRequest: async (request, reply) => {
      if (!receiver.precheck(request.method, request.headers)) return undefined;
      const response = await receiver.receive({
        method: request.method,
        headers: request.headers,
        body: EMPTY.bytes,
      });
      return send(reply, response, hasBody(request.headers));
    },
    handler: async (request, reply) => {
      const raw = isRawBody(request.body) ? request.body : EMPTY;
      const response = await receiver.receive({
        method: request.method,
        headers: request.headers,
        body: raw.bytes,
        bodyTooLarge: !raw.complete,
      });
      return send(reply, response, !raw.complete);
    },
  });
  // preClose, not onClose: held requests must be answered before the server waits for them.
  if (owned) instance.addHook('preClose', () => receiver.close());
}

function send(reply: FastifyReplyLike, response: ReceiverResponse, close: boolean): FastifyReplyLike {
  const headers: Record<string, string> = { ...response.headers };
  if (close) headers.connection = 'close';
  return reply.code(response.status).headers(headers).send(JSON.stringify(response.body));
}

function isRawBody(value: unknown): value is RawBody {
  return typeof value === 'object' && value !== null && Buffer.isBuffer((value as RawBody).bytes);
}
