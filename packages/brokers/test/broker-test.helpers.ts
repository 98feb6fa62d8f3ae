import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { randomBytes, randomUUID } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, connect as tcpConnect, type AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach } from '@jest/globals';
import { type EventType, TaskEvent } from '@robot-mcp-kit/core';
import { JetStreamEventTransport, MqttEventTransport } from '@robot-mcp-kit/brokers';
import { jetstreamManager } from '@nats-io/jetstream';
import { connect as natsConnect, type NatsConnection } from '@nats-io/transport-node';
import mqtt, { type IPublishPacket } from 'mqtt';
import { until as waitUntil } from '../../../test/support/until.js';

/** The shared machine brokers (left running; tests use unique prefixes and stream names). */
export const SHARED_MQTT = 'mqtt://127.0.0.1:1883';
export const SHARED_NATS = 'nats://127.0.0.1:4222';
export const SECRET = 'broker-test-secret-0123456789abcdef';

/** A fresh name part for topics, subjects and streams of one test. */
export function uniqueName(prefix = 't'): string {
  return `${prefix}${randomBytes(5).toString('hex')}`;
}

/** The shared `until` with a 30 s safety net (broker and Redis restarts are slow on a loaded machine). */
export const until = (condition: () => unknown, what: string, limitMs = 30_000): Promise<void> =>
  waitUntil(condition, what, limitMs);

/** What a test left open, closed after each test (last first), failures ignored. */
export type Cleanups = (() => Promise<unknown>)[];

/** A file's cleanup list: call at the top level; each test's entries run (last first) after it. */
export function useCleanups(): Cleanups {
  const cleanups: Cleanups = [];
  afterEach(async () => {
    while (cleanups.length > 0) await cleanups.pop()!().catch(() => undefined);
  });
  return cleanups;
}

/** A plain MQTT 5 client subscribed (QoS 1) to `<prefix>/#` on the shared broker; what it saw. */
export async function mqttSpy(prefix: string, cleanups: Cleanups): Promise<IPublishPacket[]> {
  const spy = await mqtt.connectAsync(SHARED_MQTT, { protocolVersion: 5 });
  cleanups.push(() => spy.endAsync(true));
  const packets: IPublishPacket[] = [];
  spy.on('message', (_topic, _payload, packet) => packets.push(packet));
  await spy.subscribeAsync(`${prefix}/#`, { qos: 1 });
  return packets;
}

/** A robot's transport to the shared Mosquitto under `prefix`, closed after the test. */
export function mqttTransport(prefix: string, cleanups: Cleanups, server = 'sleeper'): MqttEventTransport {
  const transport = new MqttEventTransport({
    url: SHARED_MQTT,
    secret: SECRET,
    serverName: server,
    topicPrefix: prefix,
  });
  cleanups.push(() => transport.close());
  return transport;
}

/**
 * A unique subject prefix and stream name for one test, with a NATS connection to the shared
 * server; the stream is deleted and the connection closed after the test.
 */
export async function natsScope(
  cleanups: Cleanups,
): Promise<{ prefix: string; stream: string; nc: NatsConnection }> {
  const prefix = uniqueName('rmk');
  const stream = prefix.toUpperCase();
  const nc = await natsConnect({ servers: '127.0.0.1:4222' });
  cleanups.push(async () => {
    const jsm = await jetstreamManager(nc);
    await jsm.streams.delete(stream).catch(() => undefined);
    await nc.close();
  });
  return { prefix, stream, nc };
}

/** A robot's transport to the shared NATS under `prefix` into `stream`, closed after the test. */
export function jetStreamTransport(
  prefix: string,
  stream: string,
  cleanups: Cleanups,
): JetStreamEventTransport {
  const transport = new JetStreamEventTransport({
    url: SHARED_NATS,
    secret: SECRET,
    serverName: 'sleeper',
    subjectPrefix: prefix,
    stream: { name: stream, maxAgeS: 600 },
  });
  cleanups.push(() => transport.close());
  return transport;
}

/** A valid event of `server`'s task `taskId`. */
export function makeEvent(
  server: string,
  taskId: string,
  seq: number,
  type: EventType = 'progress',
): TaskEvent {
  return TaskEvent.create({
    event_id: randomUUID(),
    task_id: taskId,
    server,
    tool: 'sleep_task',
    type,
    seq,
    ts: new Date(),
    payload: type === 'task_done' ? { result: { ok: true } } : { percent: seq },
  });
}

/** A port the OS picked as free a moment ago. */
export async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

async function accepts(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = tcpConnect(port, '127.0.0.1');
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });
}

/**
 * A private broker process (Mosquitto or nats-server with JetStream) on an OS-picked port with
 * its own persistence directory, so restart tests never touch the shared machine brokers.
 */
export class PrivateBroker {
  private child: ChildProcess | undefined;
  private log = '';

  private constructor(
    readonly kind: 'mosquitto' | 'nats',
    readonly port: number,
    private readonly dir: string,
    private readonly auth?: { user: string; pass: string },
    private readonly tls = false,
    private readonly persistence = true,
  ) {}

  /**
   * @param auth when given, the broker accepts only this user (no anonymous clients).
   * @param tls when true, the broker speaks TLS only, with a self-signed certificate for 127.0.0.1
   *   ({@link certificate} is its PEM, for the clients' `ca`).
   * @param persistence Mosquitto only: false runs it as its default config does (nothing saved).
   */
  static async start(
    kind: 'mosquitto' | 'nats',
    auth?: { user: string; pass: string },
    tls = false,
    persistence = true,
  ): Promise<PrivateBroker> {
    const dir = mkdtempSync(join(tmpdir(), `rmk-${kind}-`));
    if (tls) {
      const [key, cert] = [join(dir, 'key.pem'), join(dir, 'cert.pem')];
      const subject = ['-subj', '/CN=127.0.0.1', '-addext', 'subjectAltName=IP:127.0.0.1,DNS:localhost'];
      const args = ['req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-days', '1', ...subject];
      execFileSync('openssl', [...args, '-keyout', key, '-out', cert], { stdio: 'ignore' });
    }
    const broker = new PrivateBroker(kind, await freePort(), dir, auth, tls, persistence);
    await broker.up();
    return broker;
  }

  get url(): string {
    const scheme = this.kind === 'mosquitto' ? (this.tls ? 'mqtts' : 'mqtt') : 'nats';
    return `${scheme}://127.0.0.1:${this.port}`;
  }

  /** The broker's self-signed certificate (PEM) when started with TLS. */
  get certificate(): string {
    return readFileSync(join(this.dir, 'cert.pem'), 'utf8');
  }

  /** Starts the process and waits until the port accepts connections. */
  async up(): Promise<void> {
    const [command, args] = this.command();
    const child = spawn(command, args, { stdio: ['ignore', 'pipe', 'pipe'] });
    child.stdout!.on('data', (chunk: Buffer) => (this.log += chunk.toString()));
    child.stderr!.on('data', (chunk: Buffer) => (this.log += chunk.toString()));
    this.child = child;
    const started = Date.now();
    while (!(await accepts(this.port))) {
      if (child.exitCode !== null) throw new Error(`${this.kind} exited ${child.exitCode}: ${this.log}`);
      if (Date.now() - started > 20_000) throw new Error(`${this.kind} did not listen: ${this.log}`);
      await new Promise<void>((resolve) => setTimeout(resolve, 50));
    }
  }

  /** Stops the process gracefully (SIGTERM: state saved) and waits for it to exit. */
  async down(): Promise<void> {
    const child = this.child;
    this.child = undefined;
    if (!child || child.exitCode !== null) return;
    const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
    child.kill('SIGTERM');
    const timer = setTimeout(() => child.kill('SIGKILL'), 15_000);
    await exited;
    clearTimeout(timer);
  }

  async restart(): Promise<void> {
    await this.down();
    await this.up();
  }

  async dispose(): Promise<void> {
    await this.down();
    rmSync(this.dir, { recursive: true, force: true });
  }

  private command(): [string, string[]] {
    const { auth } = this;
    if (this.kind === 'nats') {
      const creds = auth ? ['--user', auth.user, '--pass', auth.pass] : [];
      const tls = this.tls
        ? ['--tls', '--tlscert', join(this.dir, 'cert.pem'), '--tlskey', join(this.dir, 'key.pem')]
        : [];
      return [
        'nats-server',
        ['-a', '127.0.0.1', '-p', String(this.port), '-js', '-sd', this.dir, ...creds, ...tls],
      ];
    }
    const conf = join(this.dir, 'mosquitto.conf');
    const passwords = join(this.dir, 'passwords');
    if (auth) execFileSync('mosquitto_passwd', ['-b', '-c', passwords, auth.user, auth.pass]);
    writeFileSync(
      conf,
      [
        `listener ${this.port} 127.0.0.1`,
        ...(auth ? ['allow_anonymous false', `password_file ${passwords}`] : ['allow_anonymous true']),
        ...(this.tls
          ? [`certfile ${join(this.dir, 'cert.pem')}`, `keyfile ${join(this.dir, 'key.pem')}`]
          : []),
        ...(this.persistence
          ? ['persistence true', `persistence_location ${this.dir}/`]
          : ['persistence false']),
        'user root',
        'log_dest stderr',
        'log_type error',
        'log_type warning',
        '',
      ].join('\n'),
    );
    return ['mosquitto', ['-c', conf]];
  }
}
