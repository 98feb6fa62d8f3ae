import { createServer, type IncomingMessage, type Server } from 'node:http';
import { type AddressInfo } from 'node:net';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { probeCallback } from '../../src/doctor/callback.probe.js';
import { formatReport, runDoctor } from '../../src/doctor/doctor.command.js';

interface Received {
  method?: string;
  path?: string;
  type?: string;
  body: string;
}

/** A real HTTP server on 127.0.0.1 that answers `status` and records what it got. */
async function listen(
  status: number | 'hang',
): Promise<{ url: string; received: Received[]; close(): Promise<void> }> {
  const received: Received[] = [];
  const server: Server = createServer((req: IncomingMessage, res) => {
    let body = '';
    req.on('data', (chunk: Buffer) => (body += chunk.toString()));
    req.on('end', () => {
      received.push({ method: req.method, path: req.url, type: req.headers['content-type'], body });
      if (status !== 'hang') res.writeHead(status).end('{"error":"unsigned"}');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/api/agent/events`,
    received,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** A port nothing listens on: bound, then closed. */
async function closedPortUrl(): Promise<string> {
  const { url, close } = await listen(200);
  await close();
  return url;
}

describe('probeCallback', () => {
  it('POSTs an empty JSON object and counts any HTTP answer as reachable', async () => {
    const server = await listen(401);
    try {
      expect(await probeCallback(server.url, 5000)).toEqual({ reachable: true, status: 401 });
      expect(server.received).toEqual([
        { method: 'POST', path: '/api/agent/events', type: 'application/json', body: '{}' },
      ]);
    } finally {
      await server.close();
    }
  });

  it('reports a refused connection', async () => {
    expect(await probeCallback(await closedPortUrl(), 5000)).toEqual({
      reachable: false,
      reason: 'connection refused (nothing listens there)',
    });
  });

  it('gives up after the timeout when nothing answers', async () => {
    const server = await listen('hang');
    try {
      expect(await probeCallback(server.url, 200)).toEqual({
        reachable: false,
        reason: 'no answer within 200 ms',
      });
    } finally {
      await server.close();
    }
  });
});

describe('runDoctor', () => {
  let root: string;

  beforeEach(() => {
    root = mkdtempSync(join(tmpdir(), 'doctor-'));
    writeFileSync(join(root, 'package.json'), '{"dependencies": {"@robot-mcp-kit/server": "^0.1.0"}}');
    mkdirSync(join(root, 'node_modules', '@robot-mcp-kit', 'server'), { recursive: true });
    mkdirSync(join(root, 'dist'));
    writeFileSync(join(root, 'dist', 'main.js'), '');
  });

  afterEach(() => rmSync(root, { recursive: true, force: true }));

  const doctor = (env: Record<string, string | undefined>) =>
    runDoctor({ root, env, nodeVersion: '20.19.1', timeoutMs: 3000 });

  it('passes a standalone project', async () => {
    const report = await doctor({});
    expect(report.failed).toBe(0);
    expect(formatReport(report)).toMatch(/^robot-mcp-kit doctor: .*\n {2}ok {4}node .*v20\.19\.1/);
    expect(formatReport(report)).toMatch(/No problems\.\n$/);
  });

  it('reaches a callback URL set in .env, the environment winning over the file', async () => {
    const server = await listen(401);
    try {
      writeFileSync(
        join(root, '.env'),
        `RVC_CALLBACK_URL=${server.url}\nRVC_EVENT_SECRET=short\nRMK_ALLOW_WEAK_SECRET=1\nLOG_LEVEL=loud\n`,
      );
      const report = await doctor({ LOG_LEVEL: 'debug', RVC_EVENT_SECRET: undefined });
      expect(report.envFile).toBe(join(root, '.env'));
      expect(report.failed).toBe(0);
      const text = formatReport(report);
      expect(text).toContain('(with .env)');
      expect(text).toContain(`callback          ${server.url} answered HTTP 401`);
      expect(text).toContain('LOG_LEVEL         debug');
      expect(text).toMatch(
        /warn {2}RVC_EVENT_SECRET {2}is 5 bytes long; .*\(started anyway: RMK_ALLOW_WEAK_SECRET=1\)\n {26}fix: use a long random secret/,
      );
      expect(text).toMatch(/No problems \(1 warning\)\.\n$/);
      expect(server.received).toHaveLength(1);
    } finally {
      await server.close();
    }
  });

  it('fails when the callback URL does not answer or the secret is missing, and says what to do', async () => {
    const url = await closedPortUrl();
    const report = await doctor({ RVC_CALLBACK_URL: url });
    expect(report.failed).toBe(2);
    const text = formatReport(report);
    expect(text).toContain(`FAIL  callback          ${url}: connection refused (nothing listens there)`);
    expect(text).toContain('fix: start the app, or fix RVC_CALLBACK_URL');
    expect(text).toContain('FAIL  RVC_EVENT_SECRET  is not set, but RVC_CALLBACK_URL is');
    expect(text).toMatch(/2 problems to fix\.\n$/);
  });

  it('does not probe a malformed URL, and reports bad .env lines', async () => {
    writeFileSync(join(root, '.env'), 'RVC_CALLBACK_URL=nope\nthis is not a setting\n');
    const report = await doctor({ RVC_EVENT_SECRET: 'x'.repeat(40) });
    expect(report.results.map((r) => r.name)).not.toContain('callback');
    expect(report.results.find((r) => r.name === '.env')).toMatchObject({
      status: 'fail',
      message: 'line 2: expected KEY=value',
    });
    expect(report.failed).toBe(2);
    expect(formatReport(report)).toMatch(/2 problems to fix\.\n$/);
  });

  it('fails an old Node', async () => {
    const report = await runDoctor({ root, env: {}, nodeVersion: '18.20.0', timeoutMs: 1000 });
    expect(report.failed).toBe(1);
    expect(formatReport(report)).toMatch(/1 problem to fix\.\n$/);
  });
});
