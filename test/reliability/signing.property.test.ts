import { createHmac } from 'node:crypto';
import { describe, expect, it } from '@jest/globals';
import fc from 'fast-check';
import { sign, signatureHeader, verify } from '@robot-mcp-kit/core';

// sign/verify (spec §4.3) as properties: round trip, any single-byte tamper rejected, never throws.
const secretArb = fc.string({ minLength: 1, maxLength: 80, unit: 'grapheme' });
const tsArb = fc.integer({ min: 0, max: 4_000_000_000 });
const bodyArb = fc.uint8Array({ minLength: 0, maxLength: 2048 });
const HEX = '0123456789abcdef';

/** `bytes` with the byte at `index % length` replaced by a different value. */
function mutateByte(bytes: Uint8Array, index: number, delta: number): Uint8Array {
  const copy = Uint8Array.from(bytes);
  const at = index % copy.length;
  copy[at] = (copy[at]! + 1 + (delta % 255)) % 256;
  return copy;
}

describe('sign/verify (property-based)', () => {
  it('verify(sign(x)) holds for any secret, timestamp and body', () => {
    fc.assert(
      fc.property(secretArb, tsArb, bodyArb, (secret, ts, body) => {
        const header = signatureHeader(secret, ts, body);
        expect(verify(secret, ts, body, header, { nowMs: ts * 1000 })).toBe(true);
        expect(verify(secret, String(ts), Buffer.from(body), header, { nowMs: ts * 1000 + 299_000 })).toBe(
          true,
        );
        // The oracle: HMAC-SHA256 over `${ts}.` + body, as the Python peer computes it.
        const oracle = createHmac('sha256', Buffer.from(secret, 'utf8'))
          .update(Buffer.concat([Buffer.from(`${ts}.`), body]))
          .digest('hex');
        expect(sign(secret, ts, body)).toBe(oracle);
      }),
      { numRuns: 300 },
    );
  });

  it('rejects any single-byte change of the body', () => {
    fc.assert(
      fc.property(
        secretArb,
        tsArb,
        fc.uint8Array({ minLength: 1, maxLength: 2048 }),
        fc.nat(),
        fc.nat(),
        (secret, ts, body, i, d) => {
          const header = signatureHeader(secret, ts, body);
          expect(verify(secret, ts, mutateByte(body, i, d), header, { nowMs: ts * 1000 })).toBe(false);
        },
      ),
      { numRuns: 300 },
    );
  });

  it('rejects any single-byte change of the secret', () => {
    fc.assert(
      fc.property(
        fc.uint8Array({ minLength: 1, maxLength: 64 }),
        tsArb,
        bodyArb,
        fc.nat(),
        fc.nat(),
        (key, ts, body, i, d) => {
          // Secrets as latin1 strings so that a byte change is a char change (and back).
          const secret = Buffer.from(key).toString('latin1');
          const other = Buffer.from(mutateByte(key, i, d)).toString('latin1');
          const header = createHmac('sha256', Buffer.from(secret, 'utf8'))
            .update(`${ts}.`)
            .update(body)
            .digest('hex');
          expect(verify(secret, ts, body, `sha256=${header}`, { nowMs: ts * 1000 })).toBe(true);
          expect(verify(other, ts, body, `sha256=${header}`, { nowMs: ts * 1000 })).toBe(false);
        },
      ),
      { numRuns: 300 },
    );
  });

  it('rejects a changed timestamp, and a right signature outside the skew', () => {
    fc.assert(
      fc.property(
        secretArb,
        tsArb,
        bodyArb,
        fc.integer({ min: -1_000_000, max: 1_000_000 }).filter((d) => d !== 0),
        (secret, ts, body, delta) => {
          const header = signatureHeader(secret, ts, body);
          expect(verify(secret, ts + delta, body, header, { nowMs: ts * 1000 })).toBe(false);
          const skewed = Math.abs(delta) > 300;
          expect(verify(secret, ts, body, header, { nowMs: (ts + delta) * 1000 })).toBe(!skewed);
        },
      ),
      { numRuns: 300 },
    );
  });

  it('rejects any change of one character of the signature header (hex case aside)', () => {
    fc.assert(
      fc.property(
        secretArb,
        tsArb,
        bodyArb,
        fc.nat(),
        fc.string({ minLength: 1, maxLength: 1, unit: 'binary' }),
        (secret, ts, body, i, c) => {
          const header = signatureHeader(secret, ts, body);
          const at = i % header.length;
          const original = header[at]!;
          fc.pre(
            c !== original &&
              !(HEX.includes(original.toLowerCase()) && c.toLowerCase() === original.toLowerCase()),
          );
          const tampered = header.slice(0, at) + c + header.slice(at + 1);
          expect(verify(secret, ts, body, tampered, { nowMs: ts * 1000 })).toBe(false);
        },
      ),
      { numRuns: 500 },
    );
  });

  it('never throws, whatever it is given', () => {
    fc.assert(
      fc.property(
        fc.anything(),
        fc.anything(),
        fc.anything(),
        fc.anything(),
        fc.anything(),
        (a, b, c, d, e) => {
          const call = () =>
            verify(a as string, b as string, c as string, d as string, e as { nowMs?: number });
          expect(typeof call()).toBe('boolean');
        },
      ),
      { numRuns: 500 },
    );
    fc.assert(
      fc.property(
        fc.string({ unit: 'binary' }),
        fc.string(),
        fc.string({ unit: 'binary' }),
        fc.string({ unit: 'binary' }),
        (secret, ts, body, sig) => {
          expect(verify(secret, ts, body, sig)).toBe(false);
          expect(verify(secret, ts, body, `sha256=${sig}`)).toBe(false);
        },
      ),
      { numRuns: 500 },
    );
  });
});
