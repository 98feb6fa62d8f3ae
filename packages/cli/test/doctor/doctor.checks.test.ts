import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  checkEvents,
  checkLogLevel,
  checkNode,
  checkProject,
  type CheckResult,
  checkTransport,
  compareVersions,
  defaultTransport,
} from '../../src/doctor/doctor.checks.js';

const byName = (results: readonly CheckResult[], name: string) => results.find((r) => r.name === name);

describe('checkNode', () => {
  it('passes 20.19 and newer, fails older with the fix', () => {
    expect(checkNode('20.19.0').status).toBe('ok');
    expect(checkNode('v22.1.0')).toMatchObject({ status: 'ok', message: 'v22.1.0 (>= 20.19.0)' });
    expect(checkNode('20.18.3')).toMatchObject({
      status: 'fail',
      message: 'v20.18.3 is too old; the kit needs Node.js >= 20.19.0',
      fix: 'install Node.js 20.19 or newer (e.g. nvm install 20)',
    });
    expect(compareVersions('20.19', '20.19.0')).toBe(0);
    expect(compareVersions('18.0.0', '20.19.0')).toBe(-1);
  });
});

describe('checkTransport', () => {
  it('accepts the defaults', () => {
    expect(checkTransport({}).map((r) => r.status)).toEqual(['ok', 'info', 'info']);
    const http = checkTransport({}, 'streamable-http');
    expect(http.map((r) => [r.name, r.status, r.message])).toEqual([
      ['MCP_TRANSPORT', 'ok', "unset: streamable-http (the server's default)"],
      ['MCP_HOST', 'ok', '127.0.0.1 (loopback only)'],
      ['MCP_PORT', 'ok', 'unset: 9100'],
    ]);
  });

  it('fails a bad transport or port, warns about a public bind or a privileged port', () => {
    expect(byName(checkTransport({ MCP_TRANSPORT: 'ws' }), 'MCP_TRANSPORT')).toMatchObject({
      status: 'fail',
      fix: 'set MCP_TRANSPORT to one of stdio, streamable-http, sse',
    });
    expect(byName(checkTransport({ MCP_TRANSPORT: 'sse', MCP_PORT: 'http' }), 'MCP_PORT')?.status).toBe(
      'fail',
    );
    expect(byName(checkTransport({ MCP_TRANSPORT: 'sse', MCP_PORT: '70000' }), 'MCP_PORT')?.status).toBe(
      'fail',
    );
    expect(byName(checkTransport({ MCP_TRANSPORT: 'sse', MCP_PORT: '80' }), 'MCP_PORT')?.status).toBe('warn');
    expect(byName(checkTransport({ MCP_TRANSPORT: 'sse', MCP_PORT: '0' }), 'MCP_PORT')?.message).toContain(
      'free port',
    );
    expect(
      byName(checkTransport({ MCP_TRANSPORT: 'streamable_http', MCP_HOST: '0.0.0.0' }), 'MCP_HOST'),
    ).toMatchObject({
      status: 'warn',
      fix: expect.stringContaining('MCP_HOST=127.0.0.1'),
    });
    expect(
      byName(checkTransport({ MCP_TRANSPORT: 'sse', MCP_HOST: 'localhost', MCP_PORT: '9200' }), 'MCP_HOST')
        ?.status,
    ).toBe('ok');
  });

  it('reads the default transport of a generated main.ts', () => {
    const dir = mkdtempSync(join(tmpdir(), 'doctor-'));
    try {
      expect(defaultTransport(dir)).toBe('stdio');
      mkdirSync(join(dir, 'src'));
      writeFileSync(join(dir, 'src', 'main.ts'), "process.env.MCP_TRANSPORT ??= 'streamable-http';\n");
      expect(defaultTransport(dir)).toBe('streamable-http');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('checkEvents', () => {
  it('treats an unset URL as standalone mode', () => {
    const { results, url } = checkEvents({});
    expect(url).toBeUndefined();
    expect(results.map((r) => r.status)).toEqual(['info', 'info']);
    expect(checkEvents({ RVC_EVENT_SECRET: 'x' }).results[1]?.message).toContain('unused');
  });

  it('fails a malformed URL and a URL without a secret', () => {
    expect(
      checkEvents({ RVC_CALLBACK_URL: 'not a url', RVC_EVENT_SECRET: 's'.repeat(32) }).results[0],
    ).toMatchObject({
      status: 'fail',
      message: '"not a url" is not a URL',
    });
    expect(checkEvents({ RVC_CALLBACK_URL: 'ftp://host/x' }).results[0]?.message).toContain(
      'must use http, https, mqtt, mqtts or nats',
    );
    const missing = checkEvents({ RVC_CALLBACK_URL: 'http://127.0.0.1:8000/events', RVC_EVENT_SECRET: '  ' });
    expect(missing.url).toBe('http://127.0.0.1:8000/events');
    expect(byName(missing.results, 'RVC_EVENT_SECRET')).toMatchObject({
      status: 'fail',
      fix: "set it to the secret the receiving app holds for this server (e.g. its entry in the app's mcp.yaml)",
    });
  });

  it('fails a secret under 32 bytes as the server does (warns when allowed) and checks the timeout', () => {
    const short = checkEvents({ RVC_CALLBACK_URL: 'https://app/events', RVC_EVENT_SECRET: 'abc' });
    expect(byName(short.results, 'RVC_EVENT_SECRET')).toMatchObject({
      status: 'fail',
      message: expect.stringContaining('is 3 bytes long; an event-signing secret needs at least 32 bytes'),
      fix: expect.stringContaining('openssl rand -hex 32'),
    });
    const allowed = checkEvents({
      RVC_CALLBACK_URL: 'https://app/events',
      RVC_EVENT_SECRET: 'abc',
      RMK_ALLOW_WEAK_SECRET: '1',
    });
    expect(byName(allowed.results, 'RVC_EVENT_SECRET')?.status).toBe('warn');
    const garbled = checkEvents({
      RVC_CALLBACK_URL: 'https://app/events',
      RVC_EVENT_SECRET: 'abc',
      RMK_ALLOW_WEAK_SECRET: 'maybe',
    });
    expect(byName(garbled.results, 'RVC_EVENT_SECRET')?.fix).toContain('RMK_ALLOW_WEAK_SECRET');
    const good = checkEvents({
      RVC_CALLBACK_URL: 'https://app/events',
      RVC_EVENT_SECRET: 'x'.repeat(32),
      RVC_EVENT_TIMEOUT_MS: '5000',
    });
    expect(good.results.map((r) => r.status)).toEqual(['ok', 'ok']);
    const bad = checkEvents({ RVC_EVENT_TIMEOUT_MS: 'soon' });
    expect(byName(bad.results, 'RVC_EVENT_TIMEOUT_MS')?.status).toBe('fail');
  });
});

describe('checkLogLevel', () => {
  it('accepts the logger levels, warns otherwise', () => {
    expect(checkLogLevel({}).status).toBe('ok');
    expect(checkLogLevel({ LOG_LEVEL: 'DEBUG' })).toMatchObject({ status: 'ok', message: 'debug' });
    expect(checkLogLevel({ LOG_LEVEL: 'verbose' }).status).toBe('warn');
  });
});

describe('checkProject', () => {
  let dir: string;

  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'doctor-'));
  });

  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('fails without package.json, warns outside a kit project', () => {
    expect(checkProject(dir)[0]?.status).toBe('fail');
    writeFileSync(join(dir, 'package.json'), '{"dependencies": {}}');
    expect(checkProject(dir)[0]?.status).toBe('warn');
  });

  it('checks the install and the build', () => {
    writeFileSync(join(dir, 'package.json'), '{"dependencies": {"@robot-mcp-kit/server": "^0.1.0"}}');
    expect(checkProject(dir).map((r) => [r.name, r.status])).toEqual([
      ['project', 'ok'],
      ['install', 'fail'],
      ['build', 'warn'],
    ]);
    mkdirSync(join(dir, 'node_modules', '@robot-mcp-kit', 'server'), { recursive: true });
    mkdirSync(join(dir, 'dist'));
    writeFileSync(join(dir, 'dist', 'main.js'), '');
    expect(checkProject(dir).every((r) => r.status === 'ok')).toBe(true);
  });
});
