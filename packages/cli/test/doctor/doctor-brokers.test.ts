import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import { jetstreamManager, StorageType } from '@nats-io/jetstream';
import { connect } from '@nats-io/transport-node';
import { probeBrokerUrl } from '../../src/doctor/broker.probe.js';
import { formatReport, runDoctor } from '../../src/doctor/doctor.command.js';

// Issue 28 finding 7: doctor accepts every callback scheme the server does (http, https, mqtt,
// mqtts, nats) and probes a broker URL by connecting to the real broker (Mosquitto 1883 and
// NATS JetStream 4222 of this machine) with the kit's own broker package.
const SECRET = 'doctor-brokers-secret-0123456789abcdef';
const unique = (): string => `D${randomBytes(5).toString('hex').toUpperCase()}`;

let root: string;
beforeEach(() => {
  root = mkdtempSync(join(tmpdir(), 'doctor-brokers-'));
  writeFileSync(join(root, 'package.json'), '{"dependencies": {"@robot-mcp-kit/server": "^0.1.0"}}');
  mkdirSync(join(root, 'node_modules', '@robot-mcp-kit', 'server'), { recursive: true });
  mkdirSync(join(root, 'dist'));
  writeFileSync(join(root, 'dist', 'main.js'), '');
});
afterEach(() => rmSync(root, { recursive: true, force: true }));

const doctor = async (url: string) => {
  const report = await runDoctor({
    root,
    env: { RVC_CALLBACK_URL: url, RVC_EVENT_SECRET: SECRET },
    nodeVersion: '20.19.1',
    timeoutMs: 5000,
  });
  return { report, text: formatReport(report) };
};

async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

describe('doctor with a broker RVC_CALLBACK_URL', () => {
  it('accepts mqtt:// and reports that the broker accepted a connection', async () => {
    const { report, text } = await doctor('mqtt://127.0.0.1:1883?topic_prefix=fleet');
    expect(text).toMatch(/ok {4}RVC_CALLBACK_URL +mqtt:\/\/127\.0\.0\.1:1883\?\[redacted\]/);
    expect(text).toMatch(/ok {4}callback +MQTT broker mqtt:\/\/127\.0\.0\.1:1883 accepted a connection/);
    expect(report.failed).toBe(0);
  });

  it('accepts nats:// and reports JetStream and the stream the server would use', async () => {
    const stream = unique();
    const { report, text } = await doctor(
      `nats://127.0.0.1:4222?subject_prefix=${stream.toLowerCase()}&stream=${stream}`,
    );
    expect(text).toContain(
      `callback          NATS nats://127.0.0.1:4222 has JetStream; stream ${stream} does not exist yet (the server creates it, file-backed)`,
    );
    expect(report.failed).toBe(0);
  });

  it('warns when the stream keeps events in memory', async () => {
    const stream = unique();
    const nc = await connect({ servers: '127.0.0.1:4222' });
    const jsm = await jetstreamManager(nc);
    await jsm.streams.add({
      name: stream,
      subjects: [`${stream.toLowerCase()}.>`],
      storage: StorageType.Memory,
    });
    try {
      const { report, text } = await doctor(
        `nats://127.0.0.1:4222?subject_prefix=${stream.toLowerCase()}&stream=${stream}`,
      );
      expect(text).toContain(`has JetStream and stream ${stream} (memory storage)`);
      expect(text).toMatch(
        /warn {2}broker +the stream keeps events in memory: a NATS restart loses every stored event/,
      );
      expect(report.failed).toBe(0);
    } finally {
      await jsm.streams.delete(stream);
      await nc.close();
    }
  });

  it.each(['mqtt', 'nats'])(
    'fails a %s broker that does not answer, without printing the password',
    async (scheme) => {
      const port = await closedPort();
      const { report, text } = await doctor(`${scheme}://robot:Pw-secret-77@127.0.0.1:${port}`);
      expect(text).toMatch(new RegExp(`FAIL {2}callback +.*127\\.0\\.0\\.1:${port}.*(ECONNREFUSED|refused)`));
      expect(text).toContain('fix: start the broker, or fix RVC_CALLBACK_URL');
      expect(text).not.toContain('Pw-secret-77');
      expect(report.failed).toBe(1);
    },
  );

  it('fails an option the server would refuse, with the same message', async () => {
    const { report, text } = await doctor('mqtt://127.0.0.1:1883?stream=X');
    expect(text).toContain(
      'RVC_CALLBACK_URL: unknown query parameter "stream" for mqtt; use topic_prefix, client_id',
    );
    expect(report.failed).toBe(1);
  });

  it('still refuses a scheme the server does not serve, listing those it does', async () => {
    const { text } = await doctor('ftp://robot:Pw-secret-77@host/x');
    expect(text).toContain('"ftp://[redacted]@host/x" must use http, https, mqtt, mqtts or nats');
  });

  it('says how to install the brokers package when it is missing', async () => {
    const missing = () =>
      Promise.reject(Object.assign(new Error('Cannot find package'), { code: 'ERR_MODULE_NOT_FOUND' }));
    expect(await probeBrokerUrl('mqtt://127.0.0.1:1883', 1000, missing)).toEqual({
      ok: false,
      reason: '@robot-mcp-kit/brokers is not installed; the server needs it for this URL',
      fix: 'run npm install @robot-mcp-kit/brokers',
    });
  });
});
