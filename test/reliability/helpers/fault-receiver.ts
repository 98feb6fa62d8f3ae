import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { type AddressInfo, type Socket } from 'node:net';
import { type Clock, verify } from '@robot-mcp-kit/core';

/**
 * How the receiver answers a request:
 * - `ok`: 200; `status`: that status (500, 429, 503 ...) with optional headers (Retry-After);
 * - `hang`: never answers (the poster's request timeout fires);
 * - `reset`: destroys the connection without an answer;
 * - `slow`: answers 200 after `delayMs` of real time.
 */
export type Fault =
  | { kind: 'ok' }
  | { kind: 'status'; status: number; headers?: Record<string, string> }
  | { kind: 'hang' }
  | { kind: 'reset' }
  | { kind: 'slow'; delayMs: number };

/** Decides the fault of each request (index counts every request that reached the receiver). */
export type FaultPolicy = (request: ArrivedRequest, index: number) => Fault;

/** One request as it reached the receiver. */
export interface ArrivedRequest {
  readonly eventId: string;
  readonly taskId: string;
  readonly seq: number;
  readonly type: string;
  /** The receiver's clock when it arrived (the fake clock in most tests). */
  readonly at: number;
  readonly signatureValid: boolean;
}

/**
 * A controllable app endpoint on 127.0.0.1 (real HTTP): it can be taken down (the listener is
 * closed, so connections are refused) and brought back on the same port, and each request can be
 * answered with a fault. It records every request and every acknowledged (2xx) event.
 */
export class FaultReceiver {
  /** Every request that reached the receiver, in arrival order. */
  readonly arrivals: ArrivedRequest[] = [];
  /** Events answered 2xx, in answer order (duplicates included). */
  readonly acked: ArrivedRequest[] = [];
  policy: FaultPolicy = () => ({ kind: 'ok' });
  /** Requests being handled right now, and the most at once so far. */
  active = 0;
  maxActive = 0;
  private server: Server | undefined;
  private readonly sockets = new Set<Socket>();
  private readonly pending = new Set<ServerResponse>();
  private readonly timers = new Set<NodeJS.Timeout>();

  private constructor(
    readonly port: number,
    private readonly secret: string,
    private readonly clock: Clock,
  ) {}

  static async start(secret: string, clock: Clock): Promise<FaultReceiver> {
    const probe = createServer();
    await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
    const { port } = probe.address() as AddressInfo;
    await new Promise<void>((resolve) => probe.close(() => resolve()));
    const receiver = new FaultReceiver(port, secret, clock);
    await receiver.up();
    return receiver;
  }

  get url(): string {
    return `http://127.0.0.1:${this.port}/api/agent/events`;
  }

  get isUp(): boolean {
    return this.server !== undefined;
  }

  /** Open client connections right now (the poster's keep-alive pool). */
  get openSockets(): number {
    return this.sockets.size;
  }

  /** Requests that hang right now. */
  get hanging(): number {
    return this.pending.size;
  }

  /** The acknowledged events deduplicated on event_id (first acknowledgement wins), in order. */
  uniqueAcked(): ArrivedRequest[] {
    const seen = new Set<string>();
    return this.acked.filter((r) => (seen.has(r.eventId) ? false : (seen.add(r.eventId), true)));
  }

  /** The seqs of the unique acknowledged events of each task, in acknowledgement order. */
  seqsByTask(): Map<string, number[]> {
    const out = new Map<string, number[]>();
    for (const r of this.uniqueAcked()) out.set(r.taskId, [...(out.get(r.taskId) ?? []), r.seq]);
    return out;
  }

  /** Listens (again) on the same port. */
  async up(): Promise<void> {
    if (this.server) return;
    const server = createServer((req, res) => this.handle(req, res));
    server.on('connection', (socket) => {
      this.sockets.add(socket);
      socket.once('close', () => this.sockets.delete(socket));
    });
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(this.port, '127.0.0.1', () => resolve());
    });
    this.server = server;
  }

  /** Closes the listener and every open connection: from now on connections are refused. */
  async down(): Promise<void> {
    const server = this.server;
    if (!server) return;
    this.server = undefined;
    for (const timer of this.timers) clearTimeout(timer);
    this.timers.clear();
    this.pending.clear();
    for (const socket of this.sockets) socket.destroy();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  }

  private handle(req: IncomingMessage, res: ServerResponse): void {
    this.active += 1;
    this.maxActive = Math.max(this.maxActive, this.active);
    res.once('close', () => (this.active -= 1));
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('error', () => undefined);
    req.on('end', () => {
      const body = Buffer.concat(chunks);
      let json: Record<string, unknown> = {};
      try {
        json = JSON.parse(body.toString('utf8')) as Record<string, unknown>;
      } catch {
        // recorded with empty fields
      }
      const signatureValid = verify(
        this.secret,
        req.headers['x-rvc-timestamp'] as string | undefined,
        body,
        req.headers['x-rvc-signature'] as string | undefined,
        { nowMs: this.clock.now() },
      );
      const arrived: ArrivedRequest = {
        eventId: String(json.event_id),
        taskId: String(json.task_id),
        seq: Number(json.seq),
        type: String(json.type),
        at: this.clock.now(),
        signatureValid,
      };
      const index = this.arrivals.length;
      this.arrivals.push(arrived);
      const fault = signatureValid ? this.policy(arrived, index) : ({ kind: 'status', status: 401 } as const);
      this.answer(arrived, fault, req, res);
    });
  }

  private answer(arrived: ArrivedRequest, fault: Fault, req: IncomingMessage, res: ServerResponse): void {
    switch (fault.kind) {
      case 'ok':
        this.acked.push(arrived);
        res.writeHead(200, { 'content-type': 'application/json' }).end('{"ok":true}');
        return;
      case 'status':
        if (fault.status >= 200 && fault.status < 300) this.acked.push(arrived);
        res.writeHead(fault.status, fault.headers ?? {}).end();
        return;
      case 'hang':
        this.pending.add(res);
        res.once('close', () => this.pending.delete(res));
        return;
      case 'reset':
        req.socket.destroy();
        return;
      case 'slow': {
        const timer = setTimeout(() => {
          this.timers.delete(timer);
          if (res.destroyed) return;
          this.acked.push(arrived);
          res.writeHead(200).end('{"ok":true}');
        }, fault.delayMs);
        this.timers.add(timer);
        return;
      }
    }
  }

  async close(): Promise<void> {
    await this.down();
  }
}
