/*
 * A real client of the 2026-07-28 tasks extension, run as a child process (in Jest's VM realm the
 * SDK's parsed answers are not plain objects of the test's realm, which ext-tasks refuses): the SDK
 * v2 client pinned to 2026-07-28 with `@modelcontextprotocol/ext-tasks`, wired as its guide says —
 * the SDK client for ordinary requests and a host `rawDispatch` (one JSON-RPC POST per request, with
 * the binding's headers) for the task wire shapes.
 *
 *   node test/support/ext-tasks.client.mjs <url> <tool> <arguments JSON> settle|cancel
 *
 * Prints `{"created": <kind>}` once the call answered, then `{"outcome": {status, result?, error?}}`.
 */
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { createTaskSessionFromClient } from '@modelcontextprotocol/ext-tasks/client';

/* global fetch */

const VERSION = '2026-07-28';
const NAME_SOURCE = { 'tools/call': 'name', 'tasks/get': 'taskId', 'tasks/cancel': 'taskId' };
const [url, tool, args, action] = process.argv.slice(2);

let nextId = 1;
async function rawDispatch(request) {
  const { method, params } = request;
  const name = NAME_SOURCE[method] !== undefined ? params?.[NAME_SOURCE[method]] : undefined;
  const id = nextId++;
  const response = await fetch(url, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      'mcp-protocol-version': VERSION,
      'mcp-method': method,
      ...(typeof name === 'string' ? { 'mcp-name': name } : {}),
    },
    body: JSON.stringify({ jsonrpc: '2.0', id, method, params }),
  });
  const reply = replyOf(await response.text(), response.headers.get('content-type') ?? '', id);
  return reply.error ? { kind: 'error', error: reply.error } : { kind: 'result', result: reply.result };
}

/** The JSON-RPC response of request `id`, from a JSON body or an SSE stream. */
function replyOf(text, contentType, id) {
  if (!contentType.includes('text/event-stream')) return JSON.parse(text);
  for (const line of text.split('\n')) {
    if (!line.startsWith('data:')) continue;
    const message = JSON.parse(line.slice(5));
    if (message.id === id) return message;
  }
  throw new Error(`no response to request ${id} in the SSE stream: ${text}`);
}

const client = new Client(
  { name: 'ext-tasks-child', version: '1' },
  { versionNegotiation: { mode: { pin: VERSION } } },
);
await client.connect(new StreamableHTTPClientTransport(new URL(url)));
const session = createTaskSessionFromClient(client, {
  endpointId: url,
  rawDispatch,
  v2RequestFraming: {
    protocolVersion: VERSION,
    clientInfo: { name: 'ext-tasks-child', version: '1' },
    clientCapabilities: {},
  },
});
const execution = await session.callTool(tool, JSON.parse(args));
console.log(JSON.stringify({ created: execution.kind }));
if (action === 'cancel') await execution.cancel();
const { outcome } = await execution.settle();
const { status, result, error } = outcome;
console.log(
  JSON.stringify({
    outcome: { status, result, error: error && { name: error.name, message: error.message } },
  }),
);
await session.close();
await client.close();
