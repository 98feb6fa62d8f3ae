import { type JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import { type MessageStage, runInbound, runOutbound } from './message-pipeline.transport.js';

/**
 * One 2026-07-28 HTTP exchange through the kit's {@link MessageStage}s, around the v2 SDK's
 * `createMcpHandler` (which owns its per-request transport): the parsed body is the inbound
 * message (a stage may answer it instead, or run the SDK inside its context), and every JSON-RPC
 * message of the `Response` — a JSON body or the `data` of an SSE stream's events — is the
 * outbound side. The stages are closed when the response ends. `subscriptions/listen` streams and
 * bodies that are not one JSON-RPC message go straight to `forward`.
 */
export async function exchangeThroughStages(
  stages: readonly MessageStage[],
  body: unknown,
  forward: () => Promise<Response>,
): Promise<Response> {
  if (!isMessage(body) || body.method === 'subscriptions/listen') return forward();
  let forwarded: Promise<Response> | undefined;
  let answer: JSONRPCMessage | undefined;
  runInbound(
    stages,
    body as JSONRPCMessage,
    () => (forwarded = forward()),
    (refusal) => (answer = refusal),
  );
  const close = (): void => {
    for (const stage of stages) stage.closed?.();
  };
  if (answer) {
    const out = runOutbound(stages, answer);
    close();
    return Response.json(out);
  }
  if (!forwarded) {
    close();
    return new Response(null, { status: 202 });
  }
  let response: Response;
  try {
    response = await forwarded;
  } catch (err) {
    close();
    throw err;
  }
  return withStages(stages, response, close);
}

async function withStages(
  stages: readonly MessageStage[],
  response: Response,
  close: () => void,
): Promise<Response> {
  const type = response.headers.get('content-type') ?? '';
  if (!response.body || (!type.startsWith('application/json') && !type.startsWith('text/event-stream'))) {
    close();
    return response;
  }
  const headers = new Headers(response.headers);
  headers.delete('content-length');
  const init = { status: response.status, statusText: response.statusText, headers };
  if (type.startsWith('application/json')) {
    const text = rewritten(stages, await response.text());
    close();
    return new Response(text, init);
  }
  return new Response(sseThroughStages(stages, response.body, close), init);
}

/**
 * A JSON text through the outbound stages: the same text unless a stage changed the message. Only
 * answers reach the stages (see {@link MessageStage.outbound}), so a text that names neither a
 * `"result"` nor an `"error"` (the SDK's progress and log notifications on an SSE stream) is
 * passed on as it is, without being parsed.
 */
function rewritten(stages: readonly MessageStage[], text: string): string {
  if (!mayBeAnswer(text)) return text;
  let message: unknown;
  try {
    message = JSON.parse(text);
  } catch {
    return text;
  }
  if (!isMessage(message)) return text;
  const out = runOutbound(stages, message as JSONRPCMessage);
  return out === message ? text : JSON.stringify(out);
}

/** An SSE body whose events' `data` lines pass the outbound stages, frame by frame. */
function sseThroughStages(
  stages: readonly MessageStage[],
  body: ReadableStream<Uint8Array>,
  close: () => void,
): ReadableStream<Uint8Array> {
  const reader = body.getReader();
  const decoder = new TextDecoder();
  const encoder = new TextEncoder();
  let pending = '';
  return new ReadableStream<Uint8Array>({
    async pull(controller) {
      const { done, value } = await reader.read();
      if (done) {
        if (pending) controller.enqueue(encoder.encode(pending));
        close();
        controller.close();
        return;
      }
      pending += decoder.decode(value, { stream: true });
      const end = pending.lastIndexOf('\n\n');
      if (end < 0) return;
      const frames = pending.slice(0, end + 2);
      pending = pending.slice(end + 2);
      controller.enqueue(
        encoder.encode(
          frames.replace(/^data: (.*)$/gm, (_line, data: string) => `data: ${rewritten(stages, data)}`),
        ),
      );
    },
    cancel(reason) {
      close();
      return reader.cancel(reason);
    },
  });
}

/**
 * False only for a text that cannot be a JSON-RPC answer: the SDK writes its messages with
 * `JSON.stringify`, which spells every key as it is, so an answer's text holds `"result"` or
 * `"error"` (a string value holding them only makes it parse, as before).
 */
function mayBeAnswer(text: string): boolean {
  return text.includes('"result"') || text.includes('"error"');
}

function isMessage(value: unknown): value is Record<string, unknown> & { method?: unknown } {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
