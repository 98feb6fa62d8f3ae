import { PassThrough } from 'node:stream';
import { describe, expect, it } from '@jest/globals';
import {
  classifyFirstLine,
  firstStdioEra,
  resumeWhenListened,
} from '../../src/transports/stdio-era.router.js';

const modernLine = JSON.stringify({
  jsonrpc: '2.0',
  id: 1,
  method: 'server/discover',
  params: { _meta: { 'io.modelcontextprotocol/protocolVersion': '2026-07-28' } },
});
const initializeLine = JSON.stringify({
  jsonrpc: '2.0',
  id: 0,
  method: 'initialize',
  params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'c', version: '1' } },
});

describe('stdio era routing (first line decides)', () => {
  it('classifies the 2026 envelope as modern and everything else as legacy', () => {
    expect(classifyFirstLine(modernLine)).toBe('modern');
    expect(classifyFirstLine(initializeLine)).toBe('legacy');
    expect(classifyFirstLine('not json')).toBe('legacy');
    expect(classifyFirstLine('[1,2]')).toBe('legacy');
    expect(classifyFirstLine(JSON.stringify({ method: 'x', params: { _meta: { other: 1 } } }))).toBe(
      'legacy',
    );
  });

  it('puts every byte back for the transport that takes over, split chunks included', async () => {
    const stdin = new PassThrough();
    const era = firstStdioEra(stdin);
    stdin.write(initializeLine.slice(0, 10));
    stdin.write(`${initializeLine.slice(10)}\n{"jsonrpc":"2.0","method":"notifications/initialized"}\n`);
    expect(await era).toBe('legacy');
    const received: Buffer[] = [];
    stdin.on('data', (chunk: Buffer) => received.push(chunk));
    await resumeWhenListened(stdin, 1000);
    stdin.end();
    await new Promise((resolve) => stdin.once('end', resolve));
    expect(Buffer.concat(received).toString()).toBe(
      `${initializeLine}\n{"jsonrpc":"2.0","method":"notifications/initialized"}\n`,
    );
  });

  it('reports closed when stdin ends before a line', async () => {
    const stdin = new PassThrough();
    const era = firstStdioEra(stdin);
    stdin.end('{"partial":');
    expect(await era).toBe('closed');
  });
});
