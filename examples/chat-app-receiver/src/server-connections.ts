import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { SSEClientTransport } from '@modelcontextprotocol/sdk/client/sse.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { type Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import { McpError } from '@modelcontextprotocol/sdk/types.js';
import { type Logger, silentLogger } from '@robot-mcp-kit/core';
import { type ToolCaller } from '@robot-mcp-kit/receiver';
import { callbackUrl, type ReceiverConfig, type ServerTarget, stdioServerEnv } from './receiver.config.js';

const CLIENT_INFO = { name: 'chat-app-receiver', version: '0.1.0' };

/** `http://127.0.0.1:9100/mcp` (no query: it may carry a token) or the stdio command line. */
export function describeTarget(target: ServerTarget): string {
  return target.kind === 'http'
    ? `${target.url.origin}${target.url.pathname}`
    : [target.command, ...target.args].join(' ');
}

/**
 * One official-SDK `Client` per capability server, for the Reconciler. Each connects on first
 * use and again on the next use after its connection failed or closed, so a server that was
 * down at start, or restarted, is reconciled once it is back.
 */
export class ServerConnections {
  /** A ToolCaller (`callTool`) per server name: hand these to `new Reconciler({ servers })`. */
  readonly callers: Record<string, ToolCaller>;
  private readonly connections: ServerConnection[];

  constructor(
    config: Pick<ReceiverConfig, 'host' | 'port' | 'secrets' | 'servers'>,
    options: { logger?: Logger; env?: NodeJS.ProcessEnv } = {},
  ) {
    const logger = options.logger ?? silentLogger;
    const env = options.env ?? process.env;
    this.connections = config.servers.map(
      (target) =>
        new ServerConnection(target, logger, () =>
          target.kind === 'http'
            ? httpTransport(target.url)
            : new StdioClientTransport({
                command: target.command,
                args: [...target.args],
                env: stdioServerEnv(
                  env,
                  callbackUrl(config.host, config.port),
                  config.secrets[target.name] ?? '',
                ),
                stderr: 'inherit',
              }),
        ),
    );
    this.callers = Object.fromEntries(this.connections.map((c) => [c.target.name, c]));
  }

  /** Connects every server now (stdio servers start pushing events once running). Never throws. */
  async connectAll(): Promise<void> {
    await Promise.allSettled(this.connections.map((c) => c.client()));
  }

  async close(): Promise<void> {
    await Promise.allSettled(this.connections.map((c) => c.close()));
  }
}

/** Streamable HTTP, or the legacy SSE transport for a URL whose path ends in `/sse`. */
function httpTransport(url: URL): Transport {
  return url.pathname.endsWith('/sse') ? new SSEClientTransport(url) : new StreamableHTTPClientTransport(url);
}

class ServerConnection implements ToolCaller {
  private connecting: Promise<Client> | undefined;
  private current: Client | undefined;
  private closed = false;

  constructor(
    readonly target: ServerTarget,
    private readonly logger: Logger,
    private readonly transport: () => Transport,
  ) {}

  readonly callTool = async (...args: Parameters<Client['callTool']>): ReturnType<Client['callTool']> => {
    const client = await this.client();
    try {
      return await client.callTool(...args);
    } catch (err) {
      // A protocol error (timeout, bad params) keeps the session; anything else (the server
      // restarted, the session is gone, the network failed) reconnects on the next call.
      if (!(err instanceof McpError)) this.forget(client, true);
      throw err;
    }
  };

  client(): Promise<Client> {
    if (this.closed) return Promise.reject(new Error(`the connection to ${this.target.name} is closed`));
    if (!this.connecting) {
      const attempt = this.open();
      this.connecting = attempt;
      attempt.catch((err: unknown) => {
        if (this.connecting === attempt) this.connecting = undefined;
        this.logger.warn('cannot connect to MCP server; will try again at the next reconcile', {
          server: this.target.name,
          target: describeTarget(this.target),
          error: err instanceof Error ? err.message : String(err),
        });
      });
    }
    return this.connecting;
  }

  async close(): Promise<void> {
    this.closed = true;
    const client = await this.connecting?.catch(() => undefined);
    this.connecting = undefined;
    this.current = undefined;
    await client?.close();
  }

  private async open(): Promise<Client> {
    const client = new Client(CLIENT_INFO);
    try {
      await client.connect(this.transport());
    } catch (err) {
      await client.close().catch(() => undefined); // e.g. stop a stdio child that did not answer
      throw err;
    }
    this.current = client;
    client.onclose = () => this.forget(client, false);
    this.logger.info('connected to MCP server', {
      server: this.target.name,
      target: describeTarget(this.target),
    });
    return client;
  }

  /** The next call connects again. */
  private forget(client: Client, close: boolean): void {
    if (this.current !== client) return;
    this.current = undefined;
    this.connecting = undefined;
    if (close) void client.close().catch(() => undefined);
  }
}
