import { Writable } from 'node:stream';
import winston from 'winston';
import { createLogger } from '@robot-mcp-kit/core';
import { asLogger, kitLogFormat } from '@robot-mcp-kit/core/host';
import { MemoryLogger } from '@robot-mcp-kit/core/testing';

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

/** The escape that starts a terminal colour code. */
const ESC = String.fromCharCode(27);

const parse = (line: string | undefined): Record<string, unknown> =>
  JSON.parse(line ?? '') as Record<string, unknown>;

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
    expect([logger.isLevelEnabled('debug'), logger.isLevelEnabled('info')]).toEqual([false, true]);
    const quiet = createLogger({ level: 'error', stream, env: {} });
    quiet.warn('w', meta);
    quiet.info('i', meta);
    expect(reads()).toBe(0);
    expect(child.isLevelEnabled('warn')).toBe(true);
  });

  it('writes one JSON line: level, message, default meta, the child task_id, fields and timestamp', () => {
    const { stream, lines } = captureStream();
    const logger = createLogger({ level: 'debug', stream, env: {}, defaultMeta: { server: 'nav' } });
    const { meta, reads } = spiedMeta();
    logger.child({ task_id: 't1' }).debug('event delivered', meta);
    expect(reads()).toBe(2); // the getter, then toJSON
    expect(lines()).toHaveLength(1);
    const parsed = parse(lines()[0]);
    expect(parsed).toEqual({
      level: 'debug',
      message: 'event delivered',
      server: 'nav',
      task_id: 't1',
      body: { big: 'body' },
      timestamp: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/) as unknown,
    });
  });

  it('keeps the call fields of a child line, and a % in a message is text, not a format token', () => {
    const { stream, lines } = captureStream();
    const logger = createLogger({ stream, env: {}, defaultMeta: { server: 'nav' } });
    logger.child({ task_id: 't1' }).info('50%d done: %s', { task_id: 't2', server: 'other', n: 1 });
    expect(parse(lines()[0])).toMatchObject({
      message: '50%d done: %s',
      task_id: 't2',
      server: 'other',
      n: 1,
    });
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
    expect(parse(lines()[0])).toMatchObject({
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

  it('reads LOG_LEVEL and LOG_FORMAT=pretty: `time level message {fields}`, the level coloured', () => {
    const { stream, lines } = captureStream();
    const logger = createLogger({ stream, env: { LOG_LEVEL: 'WARN', LOG_FORMAT: 'pretty' } });
    logger.info('hidden');
    logger.warn('shown', { n: 1, secret: 'x' });
    logger.error('bare');
    expect(lines()).toHaveLength(2);
    const [warn, error] = lines().map((line) =>
      line.replaceAll(`${ESC}[33m`, '<y>').replaceAll(`${ESC}[31m`, '<r>').replaceAll(`${ESC}[39m`, '</>'),
    );
    expect(warn).toMatch(/^\d{4}-\d\d-\d\dT\S+Z <y>warn<\/> shown \{"n":1,"secret":"\[redacted\]"\}$/);
    expect(error).toMatch(/^\S+Z <r>error<\/> bare$/);
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
    expect(parse(lines()[0])).toMatchObject({
      n: '10',
      error: { name: 'Error', message: 'boom' },
      cyclic: { name: 'loop', self: '[Circular]' },
      pair: [{ x: 1 }, { x: 1 }],
    });
  });

  it("an author's extra winston transport gets the same redacted lines as stderr", () => {
    const { stream, lines } = captureStream();
    const extra = captureStream();
    const logger = createLogger({
      level: 'info',
      stream,
      env: {},
      transports: [new winston.transports.Stream({ stream: extra.stream })],
    });
    logger.info('hello', { token: 'abc', n: 1 });
    logger.debug('quiet');
    expect(extra.lines()).toEqual(lines());
    expect(lines()).toHaveLength(1);
    expect(parse(lines()[0])).toMatchObject({ level: 'info', message: 'hello', token: '[redacted]', n: 1 });
  });
});

describe("an author's own winston logger", () => {
  function authorLogger(level: string): { logger: winston.Logger; lines: () => string[] } {
    const { stream, lines } = captureStream();
    const logger = winston.createLogger({
      level,
      format: kitLogFormat('json'),
      transports: [new winston.transports.Stream({ stream })],
    });
    return { logger, lines };
  }

  it("gets the kit's lines through its own transports, with the kit's default meta on a child", () => {
    const author = authorLogger('debug');
    const logger = asLogger(author.logger, { server: 'nav' });
    logger.child({ task_id: 't9' }).debug('event delivered', { seq: 3 });
    expect(author.lines().map(parse)).toEqual([
      expect.objectContaining({
        level: 'debug',
        message: 'event delivered',
        server: 'nav',
        task_id: 't9',
        seq: 3,
      }),
    ]);
  });

  it('is asked isLevelEnabled first: at its level info a debug line reads nothing', () => {
    const author = authorLogger('info');
    const logger = asLogger(author.logger);
    const { meta, reads } = spiedMeta();
    logger.debug('event delivered', meta);
    logger.child({ task_id: 't' }).debug('event delivered', meta);
    expect(reads()).toBe(0);
    expect(author.lines()).toEqual([]);
    // winston alone would have read it (it merges the metadata before its transports drop the line)
    author.logger.debug('event delivered', meta);
    expect(reads()).toBeGreaterThan(0);
  });

  it('a kit logger (the in-memory one) is used as it is', () => {
    const memory = new MemoryLogger();
    expect(asLogger(memory, { server: 'x' })).toBe(memory);
  });
});
