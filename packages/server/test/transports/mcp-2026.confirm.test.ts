import { afterEach, describe, expect, it } from '@jest/globals';
import { Client, type ElicitResult, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { InMemoryEventTransport, ManualClock, MemoryLogger } from '@robot-mcp-kit/core/testing';
import { bootstrap, CapabilityServer, Tool } from '@robot-mcp-kit/server';
import { IsString } from 'class-validator';

/*
 * Confirmation before actuation on MCP 2026-07-28: the SEP-2322 multi round-trip request. The
 * official v2 client (default options, an elicitation handler) over real streamable HTTP.
 */

class DoorArgs {
  @IsString() door!: string;
}

@CapabilityServer({ name: 'doors', version: '0.0.1' })
class DoorServer {
  readonly opened: string[] = [];

  @Tool({ description: 'Open a door', actuates: true, confirm: 'Open door {door}?' })
  openDoor(args: DoorArgs): string {
    this.opened.push(args.door);
    return `opened ${args.door}`;
  }
}

interface CallResult {
  isError?: boolean;
  content?: { type: string; text?: string }[];
  structuredContent?: Record<string, unknown>;
}

const cleanups: (() => Promise<unknown>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup().catch(() => undefined);
});

async function serve(confirmTimeoutMs = 30_000, clock?: ManualClock) {
  const instance = new DoorServer();
  const logger = new MemoryLogger();
  const app = bootstrap(DoorServer, {
    env: {},
    instance,
    logger,
    eventTransport: new InMemoryEventTransport(),
    transport: { kind: 'streamable-http', host: '127.0.0.1', port: 0 },
    confirmTimeoutMs,
    ...(clock ? { clock } : {}),
  });
  cleanups.push(() => app.close({ timeoutMs: 500 }));
  const { url } = await app.listen();
  return { instance, logger, url: url! };
}

/**
 * The official v2 client with its default options but for the protocol generation ('auto': it
 * probes with server/discover and takes 2026-07-28; the default 'legacy' speaks 2025-11-25) and an
 * elicitation handler; `answer` answers elicitation/create (none: no elicitation capability).
 */
async function connect(url: string, answer?: (message: string) => ElicitResult | Promise<ElicitResult>) {
  const asked: string[] = [];
  const sent: string[] = [];
  const client = new Client(
    { name: 'confirmer', version: '1' },
    {
      versionNegotiation: { mode: 'auto' },
      ...(answer ? { capabilities: { elicitation: {} } } : {}),
    },
  );
  if (answer) {
    client.setRequestHandler('elicitation/create', (request) => {
      const { message } = request.params as { message: string };
      asked.push(message);
      return Promise.resolve(answer(message));
    });
  }
  const recording = (input: string | URL | Request, init?: RequestInit) => {
    if (typeof init?.body === 'string') sent.push(init.body);
    return fetch(input, init);
  };
  await client.connect(new StreamableHTTPClientTransport(new URL(url), { fetch: recording }));
  cleanups.push(() => client.close());
  expect(client.getNegotiatedProtocolVersion()).toBe('2026-07-28');
  const call = async () =>
    (await client.callTool({ name: 'open_door', arguments: { door: 'lab' } })) as CallResult;
  return { asked, sent, call };
}

function decisions(logger: MemoryLogger): unknown[] {
  return logger.entries.filter((e) => e.message === 'confirmation').map((e) => e.meta);
}

describe('confirmation on MCP 2026-07-28 (input_required round trip)', () => {
  it('asks through the round trip and runs the tool when the human accepts', async () => {
    const { instance, logger, url } = await serve();
    const { asked, sent, call } = await connect(url, () => ({ action: 'accept', content: {} }));
    const result = await call();
    expect(result.isError).toBeFalsy();
    expect(result.content?.[0]?.text).toBe('opened lab');
    expect(asked).toEqual(['Open door lab?']);
    expect(instance.opened).toEqual(['lab']);
    // Two tools/call requests: the first answered input_required, the retry carried the answer.
    const calls = sent.map(
      (body) => JSON.parse(body) as { method?: string; params?: Record<string, unknown> },
    );
    const toolCalls = calls.filter((message) => message.method === 'tools/call');
    expect(toolCalls).toHaveLength(2);
    expect(toolCalls[1]?.params?.inputResponses).toEqual({ confirm: { action: 'accept', content: {} } });
    expect(typeof toolCalls[1]?.params?.requestState).toBe('string');
    expect(decisions(logger)).toEqual([{ tool: 'open_door', principal: 'anonymous', decision: 'confirmed' }]);
  });

  it('starts nothing and says so when the human declines', async () => {
    const { instance, logger, url } = await serve();
    const { asked, call } = await connect(url, () => ({ action: 'decline' }));
    const refused = await call();
    expect(refused.isError).toBe(true);
    expect(refused.structuredContent).toMatchObject({ error_code: 'NOT_CONFIRMED' });
    expect(refused.content?.[0]?.text).toBe(
      'NOT_CONFIRMED: open_door was not started: the confirmation was declined',
    );
    expect(asked).toEqual(['Open door lab?']);
    expect(instance.opened).toEqual([]);
    expect(decisions(logger)).toMatchObject([{ decision: 'refused', why: 'the confirmation was declined' }]);
  });

  it('refuses a client that cannot ask (no elicitation capability), starting nothing', async () => {
    const { instance, url } = await serve();
    const { sent, call } = await connect(url);
    const refused = await call();
    expect(refused.isError).toBe(true);
    expect(refused.structuredContent).toMatchObject({ error_code: 'NOT_CONFIRMED' });
    expect(refused.content?.[0]?.text).toContain('this client cannot ask');
    expect(instance.opened).toEqual([]);
    expect(sent.filter((body) => body.includes('"tools/call"'))).toHaveLength(1);
  });

  it('starts nothing for an accepted round replayed, or one answered after the timeout', async () => {
    const clock = new ManualClock(Date.now());
    const { instance, url } = await serve(1_000, clock);
    const { sent, call } = await connect(url, () => ({ action: 'accept', content: {} }));
    await call();
    expect(instance.opened).toEqual(['lab']);
    const retry = sent.filter((body) => body.includes('"tools/call"'))[1]!;
    const replay = await fetch(url, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        'mcp-protocol-version': '2026-07-28',
        'mcp-method': 'tools/call',
        'mcp-name': 'open_door',
      },
      body: retry,
    });
    const text = await replay.text();
    expect(text).toContain('NOT_CONFIRMED: open_door was not started: this confirmation was used already');
    expect(instance.opened).toEqual(['lab']);

    // The human takes longer than the confirmation timeout (1 s) to say yes.
    const late = await connect(url, async () => {
      await clock.advance(1_001);
      return { action: 'accept', content: {} };
    });
    const refused = await late.call();
    expect(refused.content?.[0]?.text).toContain('no answer to the confirmation within 1 s');
    expect(instance.opened).toEqual(['lab']);
  });
});
