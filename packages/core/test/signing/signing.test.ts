import { readFileSync } from 'node:fs';
import { SIGNATURE_PREFIX, sign, signatureHeader, verify } from '@robot-mcp-kit/core';

interface SigningCase {
  secret: string;
  timestamp: number;
  body_base64: string;
  signature_hex: string;
  header: string;
}
const fixtures = JSON.parse(readFileSync(new URL('../fixtures/signing.json', import.meta.url), 'utf8')) as {
  cases: SigningCase[];
};

const SECRET = 's3cr3t';
const TS = 1765532000;
const BODY = '{"schema_version":1,"event_id":"e-1"}';
const atTs = (offsetS = 0): { nowMs: number } => ({ nowMs: (TS + offsetS) * 1000 });

describe('signing golden vectors (fixtures/signing.json)', () => {
  it('has the six shared cases', () => {
    expect(fixtures.cases).toHaveLength(6);
  });

  describe.each(fixtures.cases.map((c, i) => [i + 1, c] as const))('case %i', (_n, c) => {
    const body = Buffer.from(c.body_base64, 'base64');

    it('sign() gives the expected hex', () => {
      expect(sign(c.secret, c.timestamp, body)).toBe(c.signature_hex);
      expect(sign(c.secret, String(c.timestamp), body)).toBe(c.signature_hex);
    });

    it('signatureHeader() gives the expected header', () => {
      expect(signatureHeader(c.secret, c.timestamp, body)).toBe(c.header);
      expect(c.header).toBe(SIGNATURE_PREFIX + c.signature_hex);
    });

    it('verify() accepts it at the case timestamp', () => {
      const nowMs = c.timestamp * 1000;
      expect(verify(c.secret, c.timestamp, body, c.header, { nowMs })).toBe(true);
      expect(verify(c.secret, String(c.timestamp), body, c.header, { nowMs })).toBe(true);
    });

    it('verify() rejects it with another secret', () => {
      expect(verify(`${c.secret}x`, c.timestamp, body, c.header, { nowMs: c.timestamp * 1000 })).toBe(false);
    });
  });

  it('signs a string body as its UTF-8 bytes', () => {
    const c = fixtures.cases[2]!;
    const text = Buffer.from(c.body_base64, 'base64').toString('utf8');
    expect(text).toContain('küche');
    expect(sign(c.secret, c.timestamp, text)).toBe(c.signature_hex);
  });
});

describe('verify', () => {
  const header = signatureHeader(SECRET, TS, BODY);

  it('round-trips sign/verify with string and byte bodies', () => {
    expect(verify(SECRET, TS, BODY, header, atTs())).toBe(true);
    expect(verify(SECRET, TS, Buffer.from(BODY), header, atTs())).toBe(true);
    expect(verify(SECRET, TS, new Uint8Array(Buffer.from(BODY)), header, atTs())).toBe(true);
  });

  it('uses the real time by default', () => {
    const now = Math.floor(Date.now() / 1000);
    expect(verify(SECRET, now, BODY, signatureHeader(SECRET, now, BODY))).toBe(true);
    expect(verify(SECRET, TS, BODY, header)).toBe(false);
  });

  it('rejects a bad signature', () => {
    const flipped = header.slice(0, -1) + (header.endsWith('0') ? '1' : '0');
    expect(verify(SECRET, TS, BODY, flipped, atTs())).toBe(false);
    expect(verify(SECRET, TS, BODY, SIGNATURE_PREFIX + '0'.repeat(64), atTs())).toBe(false);
  });

  it('rejects a tampered body', () => {
    expect(verify(SECRET, TS, BODY.replace('e-1', 'e-2'), header, atTs())).toBe(false);
    expect(verify(SECRET, TS, `${BODY} `, header, atTs())).toBe(false);
  });

  it('rejects a signature made for another timestamp', () => {
    expect(verify(SECRET, TS + 1, BODY, header, atTs())).toBe(false);
  });

  it('accepts timestamps just inside 300 s and rejects just outside, both ways', () => {
    expect(verify(SECRET, TS, BODY, header, atTs(300))).toBe(true);
    expect(verify(SECRET, TS, BODY, header, atTs(-300))).toBe(true);
    expect(verify(SECRET, TS, BODY, header, atTs(301))).toBe(false);
    expect(verify(SECRET, TS, BODY, header, atTs(-301))).toBe(false);
  });

  it('compares whole seconds of now', () => {
    expect(verify(SECRET, TS, BODY, header, { nowMs: (TS + 300) * 1000 + 999 })).toBe(true);
  });

  it('honours a custom maxSkewS', () => {
    expect(verify(SECRET, TS, BODY, header, { ...atTs(30), maxSkewS: 30 })).toBe(true);
    expect(verify(SECRET, TS, BODY, header, { ...atTs(31), maxSkewS: 30 })).toBe(false);
    expect(verify(SECRET, TS, BODY, header, { ...atTs(-31), maxSkewS: 30 })).toBe(false);
    expect(verify(SECRET, TS, BODY, header, { ...atTs(0), maxSkewS: 0 })).toBe(true);
    expect(verify(SECRET, TS, BODY, header, { ...atTs(1), maxSkewS: 0 })).toBe(false);
  });

  it('accepts uppercase hex', () => {
    const upper = SIGNATURE_PREFIX + header.slice(SIGNATURE_PREFIX.length).toUpperCase();
    expect(upper).not.toBe(header);
    expect(verify(SECRET, TS, BODY, upper, atTs())).toBe(true);
  });

  it.each([
    ['missing prefix', header.slice(SIGNATURE_PREFIX.length)],
    ['other prefix', `sha1=${header.slice(SIGNATURE_PREFIX.length)}`],
    ['non-hex', `${SIGNATURE_PREFIX}${'z'.repeat(64)}`],
    ['too short', header.slice(0, -2)],
    ['too long', `${header}00`],
    ['empty', ''],
    ['prefix only', SIGNATURE_PREFIX],
    ['undefined', undefined],
    ['null', null],
  ])('returns false for a malformed header (%s)', (_name, value) => {
    expect(() => verify(SECRET, TS, BODY, value, atTs())).not.toThrow();
    expect(verify(SECRET, TS, BODY, value, atTs())).toBe(false);
  });

  it.each([
    ['abc', 'abc'],
    ['empty', ''],
    ['NaN', Number.NaN],
    ['1.5', 1.5],
    ['"1.5"', '1.5'],
    ['Infinity', Number.POSITIVE_INFINITY],
    ['undefined', undefined],
    ['null', null],
  ])('returns false for a bad timestamp (%s)', (_name, ts) => {
    expect(() => verify(SECRET, ts, BODY, header, atTs())).not.toThrow();
    expect(verify(SECRET, ts, BODY, header, atTs())).toBe(false);
  });

  it('accepts the timestamp as a decimal string', () => {
    expect(verify(SECRET, String(TS), BODY, header, atTs())).toBe(true);
    expect(verify(SECRET, ` ${TS} `, BODY, header, atTs())).toBe(true);
  });

  it('returns false for a non-string secret instead of throwing', () => {
    expect(verify(undefined as unknown as string, TS, BODY, header, atTs())).toBe(false);
  });
});
