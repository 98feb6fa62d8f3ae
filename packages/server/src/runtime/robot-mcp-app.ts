import { type Server } from '@modelcontextprotocol/sdk/server/index.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { type Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import {
  type Clock,
  type EventPoster,
  type FlushReport,
  type Logger,
  type TaskManager,
  type TriggerRegistry,
} from '@robot-mcp-kit/core';
import { type CapabilityServerDefinition } from '../metadata/definitions.types.js';
import { type SessionContext } from '../tools/registered-tool.js';
import { type TaskStarter } from '../tools/task-starter.js';
import { type ToolRegistry } from '../tools/tool-registry.js';
import { type TaskOwners } from '../auth/task-owners.js';
import { type HttpSecurityConfig } from '../transports/http-options.js';
import { listenHttp } from '../transports/http-listener.loader.js';
import { firstStdioEra, resumeWhenListened } from '../transports/stdio-era.router.js';
import { type HttpListener } from '../transports/http.listener.js';
import { type ModernWiring } from '../modern/modern-leg.wiring.js';
import { type TransportConfig } from './server-config.js';
import { type TaskStoreBridge } from '../store/task-store.bridge.js';
import { McpServerTelemetry } from '../telemetry/mcp-request.telemetry.js';
import { type McpNetworkTransport } from '../telemetry/mcp-semconv.names.js';
import { type SurfaceFeature } from '../surface/session-surface.port.js';
import { type LifecycleStep, startInOrder, stopInOrder } from './lifecycle.steps.js';
import { SessionServers } from './session-servers.js';

/**
 * An extension installs extra protocol surface on every session (native tasks, resources, event
 * feeds) and may react to sessions closing and to shutdown. `installSurface` (the kit's session
 * surface, {@link SurfaceFeature}) serves both MCP generations; `installSession` gets a 2025
 * session's low-level v1 SDK `Server` (before it connects) for what is not on the surface yet.
 */
export interface AppExtension extends SurfaceFeature {
  readonly name: string;
  installSession?(server: Server, session: SessionContext): void;
  sessionClosed?(session: SessionContext): void | Promise<void>;
  /** At shutdown, after the poster flushed; extensions close in reverse of their install order. */
  close?(): void | Promise<void>;
}

/** The parts `bootstrap()` wires together. */
export interface AppParts {
  readonly definition: CapabilityServerDefinition;
  readonly instance: object;
  readonly taskManager: TaskManager;
  readonly poster: EventPoster;
  readonly triggers: TriggerRegistry;
  readonly registry: ToolRegistry;
  readonly starter: TaskStarter;
  /** Who started which task, fed from the TaskManager's channel (bootstrap() wires it). */
  readonly owners: TaskOwners;
  readonly logger: Logger;
  readonly transport: TransportConfig;
  /** HTTP security settings, resolved by bootstrap() (host/origin checks, auth, session limits). */
  readonly http: HttpSecurityConfig;
  readonly extensions: readonly AppExtension[];
  readonly shutdownTimeoutMs: number;
  /** The environment bootstrap() read (HTTP listener settings such as RMK_SESSION_IDLE_S). */
  readonly env: NodeJS.ProcessEnv;
  readonly clock: Clock;
  /** The task store bridge when a store is configured (`RMK_STORE`); connected by listen(). */
  readonly stored?: TaskStoreBridge;
}

/** What `listen()` started. */
export interface ListenInfo {
  readonly kind: TransportConfig['kind'];
  /** The endpoint URL for HTTP transports. */
  readonly url?: string;
  readonly port?: number;
}

/**
 * A bootstrapped capability server. Each session is one low-level SDK `Server` (tools, resources and
 * native tasks installed as request handlers, sharing the task manager, poster and tools); the app
 * owns the shutdown sequence.
 */
export class RobotMcpApp {
  readonly definition: CapabilityServerDefinition;
  readonly instance: object;
  readonly taskManager: TaskManager;
  readonly poster: EventPoster;
  readonly triggers: TriggerRegistry;
  readonly registry: ToolRegistry;
  readonly starter: TaskStarter;
  readonly logger: Logger;
  readonly transportConfig: TransportConfig;
  /** Who started which task (session and principal of the authenticated session); kept out of the wire JSON. */
  readonly owners: TaskOwners;
  private readonly http: HttpSecurityConfig;
  private readonly extensions: readonly AppExtension[];
  private readonly shutdownTimeoutMs: number;
  private readonly env: NodeJS.ProcessEnv;
  private readonly clock: Clock;
  private readonly stored: TaskStoreBridge | undefined;
  /** Server spans and MCP metrics of both generations (OpenTelemetry API; no-ops without an SDK). */
  private readonly telemetry = new McpServerTelemetry();
  /** The 2025-11-25 sessions (one v1 SDK `Server` each). */
  private readonly sessions: SessionServers;
  private listener: HttpListener | undefined;
  private modernStdio: { close(): Promise<void> } | undefined;
  private modern: ModernWiring | undefined;
  private closing: Promise<FlushReport> | undefined;
  private opened: Promise<void> | undefined;

  constructor(parts: AppParts) {
    this.definition = parts.definition;
    this.instance = parts.instance;
    this.taskManager = parts.taskManager;
    this.poster = parts.poster;
    this.triggers = parts.triggers;
    this.registry = parts.registry;
    this.starter = parts.starter;
    this.logger = parts.logger;
    this.transportConfig = parts.transport;
    this.http = parts.http;
    this.owners = parts.owners;
    this.extensions = parts.extensions;
    this.shutdownTimeoutMs = parts.shutdownTimeoutMs;
    this.env = parts.env;
    this.clock = parts.clock;
    this.stored = parts.stored;
    this.sessions = new SessionServers({ ...parts, telemetry: this.telemetry });
  }

  get name(): string {
    return this.definition.server.name;
  }

  /** The installed extension (a feature's, or one given to bootstrap) with this name. */
  extension(name: string): AppExtension | undefined {
    return this.extensions.find((extension) => extension.name === name);
  }

  /** Open sessions. */
  get sessionCount(): number {
    return this.sessions.count;
  }

  /** A fresh SDK server for one session, with every tool and extension installed. */
  createSessionServer(session: SessionContext): Server {
    return this.sessions.create(session);
  }

  /** Connects one transport as a new session (in-memory pairs in tests, stdio, HTTP sessions). */
  connect(transport: Transport): Promise<Server> {
    return this.connectSession(transport, undefined);
  }

  /** {@link connect}, with the session's `network.transport` for its telemetry (`pipe`, `tcp`). */
  private async connectSession(
    transport: Transport,
    network: McpNetworkTransport | undefined,
  ): Promise<Server> {
    // A server embedded with connect() alone still shares its tasks and events through the store.
    if (this.stored) await this.open();
    return this.sessions.connect(transport, network);
  }

  /**
   * The declared start order, run once (the listener and the 2026 leg follow, in `listen()`): the task
   * store first (other replicas' tasks and cancel requests, the id reservations the starter draws
   * from), then the poster (its transport, the outbox), whose delivery gate asks the store.
   */
  private open(): Promise<void> {
    this.opened ??= startInOrder([
      { component: 'task-store', run: () => this.stored?.start() },
      { component: 'poster', run: () => this.poster.open() },
    ]);
    return this.opened;
  }

  /** Starts the configured transport (`MCP_TRANSPORT`): stdio, SSE or streamable HTTP. */
  async listen(overrides: Partial<TransportConfig> = {}): Promise<ListenInfo> {
    const config = { ...this.transportConfig, ...overrides };
    await this.open();
    if (config.kind === 'stdio') {
      this.routeStdio().catch((err: unknown) =>
        this.logger.error('stdio transport failed to start', { error: String(err) }),
      );
      this.logger.info('MCP server on stdio', { server: this.name });
      return { kind: 'stdio' };
    }
    const modern = config.kind === 'streamable-http' ? await this.modernWiring() : undefined;
    modern?.publishToBus();
    this.listener = await listenHttp(
      config,
      async (transport) => void (await this.connectSession(transport, 'tcp')),
      this.logger,
      {
        env: this.env,
        clock: this.clock,
        security: this.http,
        owners: this.owners,
        toolOf: (name) => this.registry.get(name),
        ...(modern
          ? { modern: modern.factory, modernBus: modern.bus, modernStages: () => modern.stages('tcp') }
          : {}),
      },
    );
    return { kind: config.kind, url: this.listener.url, port: this.listener.port };
  }

  /**
   * Under stdio the first line decides: a 2025 client's `initialize` opens a v1 session as before;
   * a line carrying the 2026-07-28 envelope hands stdin/stdout to the v2 SDK (loaded only then).
   */
  private async routeStdio(): Promise<void> {
    const era = await firstStdioEra(process.stdin);
    if (era === 'closed') return;
    if (era === 'legacy') {
      await this.connectSession(new StdioServerTransport(), 'pipe');
    } else {
      const modern = await this.modernWiring();
      const { serveModernStdio } = await import('../modern/modern-stdio.server.js');
      this.modernStdio = serveModernStdio(modern.stdioFactory(), this.logger, modern.stages('pipe'));
    }
    await resumeWhenListened(process.stdin);
    if (era === 'legacy') return;
    this.logger.info('MCP 2026-07-28 client on stdio', { server: this.name });
  }

  /** The MCP 2026-07-28 leg (loaded only by servers that serve a 2026 client or streamable HTTP). */
  private async modernWiring() {
    if (this.modern) return this.modern;
    const { ModernWiring } = await import('../modern/modern-leg.wiring.js');
    this.modern = new ModernWiring({
      definition: this.definition,
      registry: this.registry,
      owners: this.owners,
      logger: this.logger,
      telemetry: this.telemetry,
      // Installed on the 2026 leg's surfaces as on the 2025 sessions'.
      features: this.extensions,
    });
    return this.modern;
  }

  /**
   * Shuts down: stops taking new tasks, cancels running ones (5 s grace), flushes events until the
   * deadline, closes sessions and the listener. Idempotent; resolves with the poster's report.
   */
  close(options: { timeoutMs?: number } = {}): Promise<FlushReport> {
    this.closing ??= this.doClose(options.timeoutMs ?? this.shutdownTimeoutMs);
    return this.closing;
  }

  private async doClose(timeoutMs: number): Promise<FlushReport> {
    const started = Date.now();
    const running = this.taskManager.runningCount;
    let report: FlushReport = { delivered: 0, dropped: 0, unflushed: 0 }; // the poster's, once it closed
    await stopInOrder(
      this.shutdownOrder(async () => {
        report = await this.poster.aclose({ timeoutMs: Math.max(0, timeoutMs - (Date.now() - started)) });
      }),
      this.logger,
    );
    this.logger.info('server stopped', { cancelled_tasks: running, ...report });
    return report;
  }

  /**
   * The declared shutdown order. The tasks end first (no new one, the running ones cancelled), while
   * the store and the poster still take their last records and events; the store writes what is
   * pending and closes; the poster flushes until the deadline (`closePoster`); then the extensions,
   * in reverse of their install order (the last installed closes first); the transports last, so
   * the sessions hear of the final changes.
   */
  private shutdownOrder(closePoster: () => Promise<void>): LifecycleStep[] {
    return [
      { component: 'intake', run: () => this.starter.stopIntake() },
      { component: 'tasks', run: () => this.taskManager.aclose({ flush: false }) },
      { component: 'task-store', run: () => this.stored?.close() },
      { component: 'poster', run: closePoster },
      ...[...this.extensions].reverse().map((extension) => ({
        component: `extension ${extension.name}`,
        run: () => extension.close?.(),
      })),
      { component: 'listener', run: () => this.listener?.close() },
      { component: 'stdio-2026', run: () => this.modernStdio?.close() },
      { component: 'leg-2026', run: () => this.modern?.close() },
      { component: 'sessions', run: () => this.sessions.closeAll() },
    ];
  }
}
