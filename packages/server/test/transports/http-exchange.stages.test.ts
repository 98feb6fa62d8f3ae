import { describe, expect, it } from '@jest/globals';
import { type JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import { exchangeThroughStages } from '../../src/transports/http-exchange.stages.js';
import { type MessageStage, runOutbound } from '../../src/transports/message-pipeline.transport.js';

const CALL = { jsonrpc: '2.0', id: 7, method: 'tools/call', params: { name: 'move' } };
const PROGRESS = {
  method: 'notifications/progress',
  params: { progressToken: 1, progress: 1, message: 'half way' },
  jsonrpc: '2.0',
};
const ANSWER = { result: { content: [], structuredContent: { ok: true } }, jsonrpc: '2.0', id: 7 };

/** A stage that records every outbound message it sees and marks each answer's result. */
function recordingStage(seen: JSONRPCMessage[]): MessageStage {
  return {
    outbound(message) {
      seen.push(message);
      if (!('result' in message)) return message;
      return { ...message, result: { ...message.result, marked: true } };
    },
  };
}

async function exchange(stages: MessageStage[], response: Response): Promise<string> {
  const out = await exchangeThroughStages(stages, CALL, () => Promise.resolve(response));
  return out.text();
}

describe('the 2026-07-28 HTTP exchange through the message stages', () => {
  it('hands only answers to outbound stages: an SSE notification leaves as the SDK wrote it', async () => {
    const seen: JSONRPCMessage[] = [];
    const progress = JSON.stringify(PROGRESS);
    const sse = `event: message\ndata: ${progress}\n\nevent: message\ndata: ${JSON.stringify(ANSWER)}\n\n`;
    const text = await exchange(
      [recordingStage(seen)],
      new Response(sse, { headers: { 'content-type': 'text/event-stream' } }),
    );
    expect(seen).toEqual([ANSWER]);
    const data = text
      .split('\n')
      .filter((line) => line.startsWith('data: '))
      .map((line) => line.slice('data: '.length));
    expect(data[0]).toBe(progress);
    expect(JSON.parse(data[1]!)).toEqual({ ...ANSWER, result: { ...ANSWER.result, marked: true } });
  });

  it('runs a JSON answer through the stages', async () => {
    const seen: JSONRPCMessage[] = [];
    const text = await exchange(
      [recordingStage(seen)],
      new Response(JSON.stringify(ANSWER), { headers: { 'content-type': 'application/json' } }),
    );
    expect(seen).toEqual([ANSWER]);
    expect(JSON.parse(text)).toEqual({ ...ANSWER, result: { ...ANSWER.result, marked: true } });
  });

  it('runs an error answer through the stages; a notification passes runOutbound untouched', () => {
    const seen: JSONRPCMessage[] = [];
    const error = { jsonrpc: '2.0', id: 3, error: { code: -32602, message: 'bad' } } as JSONRPCMessage;
    expect(runOutbound([recordingStage(seen)], error)).toBe(error);
    const note = PROGRESS as JSONRPCMessage;
    expect(runOutbound([recordingStage(seen)], note)).toBe(note);
    expect(seen).toEqual([error]);
  });
});
