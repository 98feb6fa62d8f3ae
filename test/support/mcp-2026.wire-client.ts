/*
 * A client of the tasks extension written from the SEP-2663 text and the 2026-07-28 HTTP binding:
 * JSON-RPC over fetch, the per-request `_meta` envelope, MCP-Protocol-Version / Mcp-Method /
 * Mcp-Name headers, and the extension declared (or not) in the per-request client capabilities.
 */
export const VERSION = '2026-07-28';
export const TASKS = 'io.modelcontextprotocol/tasks';
const NAME_SOURCE: Record<string, string> = {
  'tools/call': 'name',
  'tasks/get': 'taskId',
  'tasks/update': 'taskId',
  'tasks/cancel': 'taskId',
  'resources/read': 'uri',
};

export interface RpcReply {
  status: number;
  result?: Record<string, unknown>;
  error?: { code: number; message: string; data?: unknown };
}

export class WireClient {
  private nextId = 1;
  constructor(
    private readonly url: string,
    private readonly declareTasks: boolean,
    private readonly headers: Record<string, string> = {},
  ) {}

  async request(method: string, params: Record<string, unknown> = {}, headers: Record<string, string> = {}) {
    const capabilities = this.declareTasks ? { extensions: { [TASKS]: {} } } : {};
    const body = {
      jsonrpc: '2.0',
      id: this.nextId++,
      method,
      params: {
        ...params,
        _meta: {
          'io.modelcontextprotocol/protocolVersion': VERSION,
          'io.modelcontextprotocol/clientInfo': { name: 'sep-2663-wire', version: '1' },
          'io.modelcontextprotocol/clientCapabilities': capabilities,
        },
      },
    };
    const source = NAME_SOURCE[method];
    const name = source !== undefined ? params[source] : undefined;
    const response = await fetch(this.url, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        'mcp-protocol-version': VERSION,
        'mcp-method': method,
        ...(typeof name === 'string' ? { 'mcp-name': name } : {}),
        ...this.headers,
        ...headers,
      },
      body: JSON.stringify(body),
    });
    return { status: response.status, ...(await replyOf(response, body.id)) } as RpcReply;
  }

  async result(method: string, params: Record<string, unknown> = {}): Promise<Record<string, unknown>> {
    const reply = await this.request(method, params);
    if (!reply.result) throw new Error(`${method} failed: ${JSON.stringify(reply)}`);
    return reply.result;
  }
}

/** The JSON-RPC response of request `id`, from a JSON body or an SSE stream. */
async function replyOf(response: Response, id: number): Promise<Omit<RpcReply, 'status'>> {
  const text = await response.text();
  if (!(response.headers.get('content-type') ?? '').includes('text/event-stream')) return JSON.parse(text);
  for (const line of text.split('\n')) {
    if (!line.startsWith('data:')) continue;
    const message = JSON.parse(line.slice(5)) as { id?: number };
    if (message.id === id) return message as Omit<RpcReply, 'status'>;
  }
  throw new Error(`no response to request ${id} in the SSE stream: ${text}`);
}

/** The text of a tool result's first content block. */
export function textOf(result: unknown): string {
  const content = (result as { content?: { type: string; text?: string }[] }).content ?? [];
  return content[0]?.text ?? '';
}
