import { randomUUID } from 'node:crypto';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { type Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import { type Logger } from '@robot-mcp-kit/core';
import { type TaskOwners } from '../auth/task-owners.js';
import { type CapabilityServerDefinition } from '../metadata/definitions.types.js';
import { SdkV1SessionSurface } from '../surface/sdk-v1.session-surface.js';
import { type McpServerTelemetry } from '../telemetry/mcp-request.telemetry.js';
import { type McpNetworkTransport } from '../telemetry/mcp-semconv.names.js';
import { type SessionContext } from '../tools/registered-tool.js';
import { type ToolRegistry } from '../tools/tool-registry.js';
import { PipelineTransport } from '../transports/message-pipeline.transport.js';
import { sessionStages } from '../transports/message.stages.js';
import { LazyJsonSchemaValidator } from './lazy-json-schema.validator.js';
import { type AppExtension } from './robot-mcp-app.js';

/** What the 2025-11-25 sessions of one app are made of. */
export interface SessionServerParts {
  readonly definition: CapabilityServerDefinition;
  readonly registry: ToolRegistry;
  readonly owners: TaskOwners;
  readonly extensions: readonly AppExtension[];
  readonly telemetry: McpServerTelemetry;
  readonly logger: Logger;
}

/**
 * The 2025-11-25 sessions of one app: each is one low-level v1 SDK `Server` with every tool and
 * extension installed (the extensions through the kit's session surface), connected through the
 * kit's message stages; the extensions hear of each session's end.
 */
export class SessionServers {
  private readonly sessions = new Map<Server, SessionContext>();
  /** The session surface of each session's server (closed with the session). */
  private readonly surfaces = new WeakMap<Server, SdkV1SessionSurface>();

  constructor(private readonly parts: SessionServerParts) {}

  /** Open sessions. */
  get count(): number {
    return this.sessions.size;
  }

  /** A fresh SDK server for one session, with every tool and extension installed. */
  create(session: SessionContext): Server {
    const { definition, registry, owners, extensions, logger } = this.parts;
    const { server } = definition;
    const mcp = new Server(
      {
        name: server.name,
        version: server.version,
        ...(server.title ? { title: server.title } : {}),
        ...(server.description ? { description: server.description } : {}),
      },
      { instructions: server.instructions, jsonSchemaValidator: new LazyJsonSchemaValidator() },
    );
    registry.install(mcp, session);
    const surface = new SdkV1SessionSurface(mcp, session, () => owners.scopeOfSession(session.id), logger);
    this.surfaces.set(mcp, surface);
    for (const extension of extensions) {
      extension.installSession?.(mcp, session);
      extension.installSurface?.(surface);
    }
    return mcp;
  }

  /** Connects `transport` as a new session; `network` is its telemetry's `network.transport`. */
  async connect(transport: Transport, network: McpNetworkTransport | undefined): Promise<Server> {
    const fallback = randomUUID();
    const session: SessionContext = {
      get id() {
        return transport.sessionId ?? fallback;
      },
    };
    const mcp = this.create(session);
    this.sessions.set(mcp, session);
    const { logger, telemetry } = this.parts;
    const stages = sessionStages(logger, telemetry, network, () => transport.sessionId);
    mcp.onclose = () => this.closed(mcp, session);
    await mcp.connect(new PipelineTransport(transport, stages));
    return mcp;
  }

  /** Closes every open session. */
  closeAll(): Promise<unknown> {
    return Promise.allSettled([...this.sessions.keys()].map((mcp) => mcp.close()));
  }

  private closed(mcp: Server, session: SessionContext): void {
    if (!this.sessions.delete(mcp)) return;
    const { logger, extensions } = this.parts;
    logger.debug('session closed', { session: session.id });
    this.surfaces.get(mcp)?.close();
    for (const extension of extensions) {
      Promise.resolve(extension.sessionClosed?.(session)).catch((err: unknown) =>
        logger.error('extension failed on session close', {
          extension: extension.name,
          error: String(err),
        }),
      );
    }
  }
}
