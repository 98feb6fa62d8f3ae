import { describe, expect, it } from '@jest/globals';
import { redactUrl, redactUrlCredentials, urlOrigin } from '@robot-mcp-kit/core/rules';

// Issue 28 finding 5: one redaction rule for every URL the kit prints.
const PASSWORD = 'Pw-9f3Kq7';

describe('redactUrl (one URL value, parsable or not)', () => {
  it.each([
    [`mqtt://robot:${PASSWORD}@127.0.0.1:99999`, 'mqtt://[redacted]@127.0.0.1:99999'],
    [`nats://robot:a/${PASSWORD}@127.0.0.1:4222`, 'nats://[redacted]@127.0.0.1:4222'],
    [`redis://:${PASSWORD}@bad host:6379/0`, 'redis://[redacted]@bad host:6379/0'],
    [`http://robot:p@ss ${PASSWORD}@127.0.0.1:8000/events`, 'http://[redacted]@127.0.0.1:8000/events'],
    [`https://app.local/events?token=${PASSWORD}`, 'https://app.local/events?[redacted]'],
    ['mqtt://127.0.0.1:1883', 'mqtt://127.0.0.1:1883'],
  ])('%s → %s', (value, shown) => {
    expect(redactUrl(value)).toBe(shown);
    expect(redactUrl(value)).not.toContain(PASSWORD);
  });
});

describe('redactUrlCredentials (text with URLs in it)', () => {
  it('redacts each URL of a message and leaves the rest', () => {
    const text = `connect to "mqtt://u:${PASSWORD}@h:1" failed; retry http://x:${PASSWORD}@y/z?k=${PASSWORD} later`;
    expect(redactUrlCredentials(text)).toBe(
      'connect to "mqtt://[redacted]@h:1" failed; retry http://[redacted]@y/z?[redacted] later',
    );
  });

  it('redacts a password with "/" in it', () => {
    expect(redactUrlCredentials(`got nats://u:a/${PASSWORD}@h:4222`)).toBe('got nats://[redacted]@h:4222');
  });
});

describe('urlOrigin', () => {
  it('keeps scheme and host only', () => {
    expect(urlOrigin(new URL(`mqtts://u:${PASSWORD}@broker.local:8883/x?y=1`))).toBe(
      'mqtts://broker.local:8883',
    );
  });
});
