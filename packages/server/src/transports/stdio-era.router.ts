import { type Readable } from 'node:stream';

/** What the first message on stdin says about the client. */
export type StdioEra = 'modern' | 'legacy' | 'closed';

/** Bytes read at most while looking for the end of the first line (then it is treated as 2025). */
export const MAX_FIRST_LINE_BYTES = 4 * 1024 * 1024;

const PROTOCOL_VERSION_KEY = 'io.modelcontextprotocol/protocolVersion';

/**
 * Reads stdin up to the end of its first line, puts every byte back (`unshift`, stream paused) for
 * the transport that takes over, and classifies that first message: a request carrying the
 * MCP 2026-07-28 per-request envelope (`_meta["io.modelcontextprotocol/protocolVersion"]`, e.g.
 * `server/discover`) is `modern`; anything else (`initialize`, unparsable input) is `legacy`;
 * `closed` when stdin ends first.
 */
export function firstStdioEra(stdin: Readable): Promise<StdioEra> {
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const finish = (era: StdioEra): void => {
      stdin.off('data', onData);
      stdin.off('end', onEnd);
      stdin.pause();
      if (era !== 'closed' && chunks.length > 0) stdin.unshift(Buffer.concat(chunks));
      resolve(era);
    };
    const onData = (chunk: Buffer | string): void => {
      const bytes = typeof chunk === 'string' ? Buffer.from(chunk) : chunk;
      chunks.push(bytes);
      size += bytes.length;
      const newline = bytes.indexOf(10);
      if (newline >= 0)
        finish(classifyFirstLine(Buffer.concat(chunks).toString('utf8').split('\n')[0] ?? ''));
      else if (size > MAX_FIRST_LINE_BYTES) finish('legacy');
    };
    const onEnd = (): void => finish('closed');
    stdin.on('data', onData);
    stdin.once('end', onEnd);
  });
}

/** `modern` when the line is a JSON-RPC message carrying the 2026 envelope claim. */
export function classifyFirstLine(line: string): 'modern' | 'legacy' {
  let message: unknown;
  try {
    message = JSON.parse(line);
  } catch {
    return 'legacy';
  }
  if (typeof message !== 'object' || message === null || Array.isArray(message)) return 'legacy';
  const params = (message as { params?: unknown }).params;
  const meta =
    typeof params === 'object' && params !== null ? (params as { _meta?: unknown })._meta : undefined;
  if (typeof meta !== 'object' || meta === null) return 'legacy';
  return typeof (meta as Record<string, unknown>)[PROTOCOL_VERSION_KEY] === 'string' ? 'modern' : 'legacy';
}

/**
 * Resumes stdin once the transport that took over listens to it ({@link firstStdioEra} left it
 * paused, and a paused stream does not resume by itself when a `data` listener is added).
 */
export async function resumeWhenListened(stdin: Readable, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (stdin.listenerCount('data') === 0) {
    if (Date.now() > deadline) throw new Error(`no transport listened to stdin within ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
  stdin.resume();
}
