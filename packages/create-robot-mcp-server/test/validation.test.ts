import { GeneratorError } from '../src/generator.error.js';
import {
  serverClassName,
  suggestServerName,
  validateDescription,
  validateServerName,
  validateToolName,
  validateTransport,
} from '../src/validation.js';

function errorOf(fn: () => unknown): GeneratorError {
  try {
    fn();
  } catch (err) {
    if (err instanceof GeneratorError) return err;
    throw err;
  }
  throw new Error('expected a GeneratorError');
}

describe('validateServerName', () => {
  it.each(['my-nav', 'a', 'arm2', '3d-scanner', 'x'.repeat(64)])('accepts %s', (name) => {
    expect(validateServerName(name)).toBe(name);
  });

  it.each(['', 'My-Nav', 'my_nav', '-nav', 'nav-', 'my--nav', 'x'.repeat(65), 'my nav', '@scope/nav'])(
    'refuses %j with the rule and a suggestion',
    (name) => {
      const err = errorOf(() => validateServerName(name));
      expect(err.code).toBe('GENERATOR_INVALID_NAME');
      expect(err.input).toBe('--name');
      expect(err.message).toContain('1 to 64 characters of a-z, 0-9 and "-"');
      expect(err.message).toMatch(/e\.g\. "[a-z0-9-]+"/);
    },
  );

  it('suggests the closest valid name', () => {
    expect(errorOf(() => validateServerName('My Nav_Server')).message).toContain('"my-nav-server"');
  });
});

describe('validateToolName', () => {
  it.each(['patrol', 'scan_room', 'get_status2'])('accepts %s', (name) => {
    expect(validateToolName(name)).toBe(name);
  });

  it.each(['ScanRoom', 'scan-room', '_scan', 'scan__room', '2scan', '', 'scan_2d', 'x'.repeat(129)])(
    'refuses %j',
    (name) => {
      const err = errorOf(() => validateToolName(name));
      expect(err.message).toContain('lower snake_case');
      expect(err.message).toContain('at most 128 characters');
    },
  );

  it('accepts 128 characters, the MCP limit', () => {
    expect(validateToolName('x'.repeat(128))).toBe('x'.repeat(128));
  });

  it('suggests a name that maps back to itself', () => {
    expect(errorOf(() => validateToolName('Scan Room!')).message).toContain('e.g. "scan_room"');
    expect(errorOf(() => validateToolName('scan_2d')).message).toContain('e.g. "scan2d"');
  });

  it('refuses the names the kit reserves', () => {
    const err = errorOf(() => validateToolName('get_task'));
    expect(err.message).toContain('reserved by the kit');
    expect(err.message).toContain('my_get_task');
  });

  it('refuses constructor', () => {
    expect(errorOf(() => validateToolName('constructor')).message).toContain('cannot be a method name');
  });
});

describe('validateTransport', () => {
  it('accepts the three transports and the underscore spelling', () => {
    expect(validateTransport('stdio')).toBe('stdio');
    expect(validateTransport('SSE')).toBe('sse');
    expect(validateTransport('streamable_http')).toBe('streamable-http');
  });

  it('lists the transports when refusing', () => {
    expect(errorOf(() => validateTransport('websocket')).message).toContain('stdio, streamable-http, sse');
  });
});

describe('validateDescription', () => {
  it('trims one line', () => {
    expect(validateDescription('  Drives the robot  ')).toBe('Drives the robot');
  });

  it('refuses several lines or a long text', () => {
    expect(() => validateDescription('a\nb')).toThrow(GeneratorError);
    expect(() => validateDescription('x'.repeat(201))).toThrow(/at most 200 characters/);
  });
});

describe('case helpers', () => {
  it('suggests a server name', () => {
    expect(suggestServerName('!!!')).toBe('my-robot');
  });

  it('derives a class name that is an identifier', () => {
    expect(serverClassName('my-nav')).toBe('MyNavServer');
    expect(serverClassName('nav-server')).toBe('NavServer');
    expect(serverClassName('3d-scan')).toBe('Robot3dScanServer');
  });
});
