import { Writable } from 'node:stream';
import winston from 'winston';
import { createLogger } from '@robot-mcp-kit/core';

/** A stream that keeps every chunk written to it. */
function captureStream(): { stream: Writable; lines: () => string[] } {
  const chunks: string[] = [];
  const stream = new Writable({
    write(chunk: Buffer | string, _enc, done) {
      chunks.push(chunk.toString());
      done();
    },
  });
  return { stream, lines: () => chunks.join('').split('\n').filter(Boolean) };
}

/** Metadata whose every read is counted: a field getter and a toJSON. */
function spiedMeta(): { meta: Record<string, unknown>; reads: () => number } {
  let reads = 0;
  const payload = {
    toJSON() {
      reads += 1;
      return { big: 'body' };
    },
  };
  const meta = {
    get body() {
      reads += 1;
      return payload;
    },
  };
  return { meta, reads: () => reads };
}

describe('createLogger', () => {
  it('does no work for a disabled level: the metadata is never read nor serialized', () => {
    const { stream, lines } = captureStream();
    const logger = createLogger({ level: 'info', stream, env: {} });
    const child = logger.child({ server: 's' });
    const { meta, reads } = spiedMeta();
    for (let i = 0; i < 1000; i += 1) {
      logger.debug('event delivered', meta);
      child.debug('event delivered', meta);
    }
    expect(reads()).toBe(0);
    expect(lines()).toEqual([]);
    const quiet = createLogger({ level: 'error', stream, env: {} });
    quiet.warn('w', meta);
    quiet.info('i', meta);
    expect(reads()).toBe(0);
  });

  it('formats an enabled level: one JSON line with level, message, meta and timestamp', () => {
    const { stream, lines } = captureStream();
    const logger = createLogger({ level: 'debug', stream, env: {}, defaultMeta: { server: 'nav' } });
    const { meta, reads } = spiedMeta();
    logger.child({ task_id: 't1' }).debug('event delivered', meta);
    expect(reads()).toBe(2); // the getter, then toJSON
    const [line] = lines();
    const parsed = JSON.parse(line ?? '') as Record<string, unknown>;
    expect(parsed).toMatchObject({
      level: 'debug',
      message: 'event delivered',
      server: 'nav',
      task_id: 't1',
      body: { big: 'body' },
    });
    expect(new Date(String(parsed.timestamp)).getTime()).not.toBeNaN();
  });

  it('redacts secret-looking fields of enabled lines, in default and child metadata too', () => {
    const { stream, lines } = captureStream();
    const logger = createLogger({ stream, env: {}, defaultMeta: { api_token: 'dflt' } });
    logger.child({ Authorization: 'Bearer x' }).warn('posting', {
      secret: 's3cr3t',
      signature: 'sha256=ab',
      password: 'pw',
      progressToken: 7,
      url: 'http://127.0.0.1/cb',
    });
    const parsed = JSON.parse(lines()[0] ?? '') as Record<string, unknown>;
    expect(parsed).toMatchObject({
      api_token: '[redacted]',
      Authorization: '[redacted]',
      secret: '[redacted]',
      signature: '[redacted]',
      password: '[redacted]',
      progressToken: 7,
      url: 'http://127.0.0.1/cb',
    });
    expect(lines()[0]).not.toMatch(/s3cr3t|sha256=ab|Bearer|dflt|"pw"/);
  });

  it('reads LOG_LEVEL and LOG_FORMAT, and writes pretty lines', () => {
    const { stream, lines } = captureStream();
    const logger = createLogger({ stream, env: { LOG_LEVEL: 'WARN', LOG_FORMAT: 'pretty' } });
    logger.info('hidden');
    logger.warn('shown', { n: 1, secret: 'x' });
    expect(lines()).toHaveLength(1);
    expect(lines()[0]).toMatch(/^\d{4}-\d\d-\d\dT\S+Z \S*warn\S* shown \{"n":1,"secret":"\[redacted\]"\}$/);
  });

  it('writes values JSON cannot: bigints, errors and cycles', () => {
    const { stream, lines } = captureStream();
    const cyclic: Record<string, unknown> = { name: 'loop' };
    cyclic.self = cyclic;
    const shared = { x: 1 };
    createLogger({ stream, env: {} }).error('odd', {
      n: 10n,
      error: new Error('boom'),
      cyclic,
      pair: [shared, shared],
    });
    const parsed = JSON.parse(lines()[0] ?? '') as Record<string, unknown>;
    expect(parsed).toMatchObject({
      n: '10',
      error: { name: 'Error', message: 'boom' },
      cyclic: { name: 'loop', self: '[circular]' },
      pair: [{ x: 1 }, { x: 1 }],
    });
  });

  it('writes through winston: an extra winston transport gets the same redacted lines', () => {
    const { stream, lines } = captureStream();
    const extra = captureStream();
    const logger = createLogger({
      level: 'info',
      stream,
      env: {},
      transports: [new winston.transports.Stream({ stream: extra.stream, eol: '' })],
    });
    logger.info('hello', { token: 'abc', n: 1 });
    logger.debug('quiet');
    expect(extra.lines()).toEqual(lines());
    expect(lines()).toHaveLength(1);
    expect(JSON.parse(lines()[0] ?? '{}')).toMatchObject({
      level: 'info',
      message: 'hello',
      token: '[redacted]',
      n: 1,
    });
  });
});
