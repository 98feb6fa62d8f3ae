import { parseEnvFile } from '../../src/doctor/env-file.parser.js';

describe('parseEnvFile', () => {
  it('reads the forms a .env file uses, as process.loadEnvFile does', () => {
    const text = [
      '# comment',
      '',
      'PLAIN=value',
      'SPACED = padded  ',
      'export EXPORTED=1',
      'INLINE=abc # a comment',
      'HASH=abc#def',
      "SINGLE='literal \\n # kept'",
      'DOUBLE="line\\nbreak" # comment',
      'MULTI="first',
      'second"',
      'EMPTY=',
      'URL=http://127.0.0.1:8000/api/agent/events?x=1',
      'PLAIN=later wins',
    ].join('\r\n');
    expect(parseEnvFile(text)).toEqual({
      values: {
        PLAIN: 'later wins',
        SPACED: 'padded',
        EXPORTED: '1',
        INLINE: 'abc',
        HASH: 'abc',
        SINGLE: 'literal \\n # kept',
        DOUBLE: 'line\nbreak',
        MULTI: 'first\nsecond',
        EMPTY: '',
        URL: 'http://127.0.0.1:8000/api/agent/events?x=1',
      },
      errors: [],
    });
  });

  it('reports bad lines by number and keeps the good ones', () => {
    const parsed = parseEnvFile(
      ['GOOD=1', 'no equals sign', '=nokey', '1BAD=x', 'OPEN="unterminated', "OPEN2='x"].join('\n'),
    );
    // The values are Node's (it reads the bad lines its own way); the errors name every bad line.
    expect(parsed.values.GOOD).toBe('1');
    expect(Object.keys(parsed.values).every((key) => /^[A-Za-z_][A-Za-z0-9_]*$/.test(key))).toBe(true);
    expect(parsed.errors).toEqual([
      { line: 2, message: 'expected KEY=value' },
      { line: 3, message: 'expected KEY=value' },
      { line: 4, message: '"1BAD" is not a variable name (letters, digits, _)' },
      { line: 5, message: 'the value of OPEN has no closing quote' },
      { line: 6, message: 'the value of OPEN2 has no closing quote' },
    ]);
  });
});
