import { Client as ClientV2, StreamableHTTPClientTransport as HttpV2 } from '@modelcontextprotocol/client';
import { Client as ClientV1 } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport as HttpV1 } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { InvalidTokenError } from '@modelcontextprotocol/sdk/server/auth/errors.js';
import { type AuthInfo } from '@modelcontextprotocol/sdk/server/auth/types.js';
import {
  type CallToolResult,
  ElicitRequestSchema,
  ResourceListChangedNotificationSchema,
  ResourceUpdatedNotificationSchema,
} from '@modelcontextprotocol/sdk/types.js';
import { InMemoryEventTransport, MemoryLogger } from '@robot-mcp-kit/core/testing';
import {
  bootstrap,
  type BootstrapOptions,
  type CapabilityServerClass,
  type RobotMcpApp,
} from '@robot-mcp-kit/server';
import { textOf } from '@robot-mcp-kit/server/testing';

/*
 * One feature suite, both MCP generations: `describe.each(GENERATIONS)` runs the same assertions
 * against an official v1 SDK client speaking 2025-11-25 (one session per agent) and an official v2
 * SDK client speaking 2026-07-28 (sessionless: every request stands alone), each over real
 * streamable HTTP on 127.0.0.1 to the same kind of app.
 */

/** The protocol generations the server serves. */
export const GENERATIONS = ['2025-11-25', '2026-07-28'] as const;
export type Generation = (typeof GENERATIONS)[number];

type Json = Record<string, unknown>;
/** The human's answer to a confirmation (`elicitation/create`, or the 2026 `input_required` round). */
export type Answer = { action: 'accept' | 'decline' | 'cancel'; content?: Record<string, string> };

/** One agent of one generation, as a feature suite sees it. */
export interface Agent {
  readonly generation: Generation;
  call(name: string, args?: Json): Promise<CallToolResult>;
  /** Calls a tool and parses its first text content as JSON. */
  json<R = Json>(name: string, args?: Json): Promise<R>;
  toolNames(): Promise<string[]>;
  /** The server's resources as this agent reads and follows them. */
  readonly resources: AgentResources;
  /** Ends the agent: its 2025 session is terminated (DELETE) first; a 2026 client just stops. */
  close(): Promise<void>;
}

/** Resources through the generation's official client (same shapes on both). */
export interface AgentResources {
  /** The `resources` capability the server declared (initialize, or server/discover). */
  capability(): Record<string, unknown> | undefined;
  list(): Promise<{ uri: string; name: string; title?: string }[]>;
  templates(): Promise<{ uriTemplate: string }[]>;
  read(uri: string): Promise<{ contents: { uri: string; mimeType?: string; text?: string }[] }>;
  /** Follows `uri`: 2025-11-25 `resources/subscribe`; 2026-07-28 a `subscriptions/listen` stream. */
  follow(uri: string): Promise<void>;
  /** The URIs of the `notifications/resources/updated` received so far, in order. */
  readonly updated: readonly string[];
  /**
   * Follows the resource list: a 2025-11-25 session gets `list_changed` unasked; 2026-07-28 opens
   * a `subscriptions/listen` stream with `resourcesListChanged`.
   */
  followList(): Promise<void>;
  /** How many `notifications/resources/list_changed` arrived so far. */
  readonly listChanges: number;
}

export interface AgentOptions {
  /** Answers the server's confirmation question (the client then declares elicitation). */
  readonly elicit?: (message: string) => Answer | Promise<Answer>;
  /** A bearer token of {@link BEARER_AUTH} (`alice` or `bob`), sent on every request. */
  readonly principal?: 'alice' | 'bob';
}

const RESOURCE = new URL('https://robot.example.org/mcp');
const TOKENS = { alice: 'alice-token-0123456789', bob: 'bob-token-0123456789ab' } as const;

/** The `auth` bootstrap option of a server that knows two principals, `alice` and `bob`. */
export const BEARER_AUTH = {
  resourceServerUrl: RESOURCE,
  verifier: {
    verifyAccessToken(token: string): Promise<AuthInfo> {
      const clientId = Object.entries(TOKENS).find(([, known]) => known === token)?.[0];
      if (!clientId) return Promise.reject(new InvalidTokenError('unknown token'));
      const expiresAt = Math.floor(Date.now() / 1000) + 600;
      return Promise.resolve({ token, clientId, scopes: ['robot'], expiresAt, resource: RESOURCE });
    },
  },
};

function requestInit({ principal }: AgentOptions): { requestInit?: RequestInit } {
  return principal ? { requestInit: { headers: { authorization: `Bearer ${TOKENS[principal]}` } } } : {};
}

/** An app listening on streamable HTTP (both generations on one endpoint), closed by {@link closeAll}. */
export interface Served<T extends object> {
  readonly app: RobotMcpApp;
  readonly instance: T;
  readonly url: string;
  readonly logger: MemoryLogger;
  readonly events: InMemoryEventTransport;
  agent(generation: Generation, options?: AgentOptions): Promise<Agent>;
}

const cleanups: (() => Promise<unknown>)[] = [];

/** Closes every agent and app of the test, newest first (call from afterEach). */
export async function closeAll(): Promise<void> {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup().catch(() => undefined);
}

/** Bootstraps `ServerClass` (`env: {}`, in-memory events and logger) and listens on 127.0.0.1. */
export async function serve<T extends object>(
  ServerClass: CapabilityServerClass<T>,
  options: BootstrapOptions<T> = {},
): Promise<Served<T>> {
  const logger = new MemoryLogger();
  const events = new InMemoryEventTransport();
  const app = bootstrap(ServerClass, {
    env: {},
    logger,
    eventTransport: events,
    ...options,
    transport: { kind: 'streamable-http', host: '127.0.0.1', port: 0 },
  });
  cleanups.push(() => app.close({ timeoutMs: 500 }));
  const { url } = await app.listen();
  const agent = async (generation: Generation, agentOptions: AgentOptions = {}): Promise<Agent> => {
    const connected = await (generation === '2025-11-25' ? agentV1 : agentV2)(new URL(url!), agentOptions);
    cleanups.push(() => connected.close());
    return connected;
  };
  return { app, instance: app.instance as T, url: url!, logger, events, agent };
}

function agentOf(
  generation: Generation,
  callTool: (name: string, args: Json) => Promise<unknown>,
  listTools: () => Promise<{ tools: { name: string }[] }>,
  resources: AgentResources,
  close: () => Promise<void>,
): Agent {
  const call = async (name: string, args: Json = {}) => (await callTool(name, args)) as CallToolResult;
  return {
    generation,
    call,
    json: async <R>(name: string, args: Json = {}) => JSON.parse(textOf(await call(name, args))) as R,
    toolNames: async () => (await listTools()).tools.map((tool) => tool.name),
    resources,
    close,
  };
}

/** The official v1 SDK client (2025-11-25): one session over streamable HTTP. */
async function agentV1(url: URL, options: AgentOptions): Promise<Agent> {
  const { elicit } = options;
  const client = new ClientV1(
    { name: 'agent-2025', version: '1' },
    elicit ? { capabilities: { elicitation: {} } } : {},
  );
  if (elicit) client.setRequestHandler(ElicitRequestSchema, (request) => elicit(request.params.message));
  const transport = new HttpV1(url, requestInit(options));
  const updated: string[] = [];
  let listChanges = 0;
  client.setNotificationHandler(ResourceUpdatedNotificationSchema, (n) => void updated.push(n.params.uri));
  client.setNotificationHandler(ResourceListChangedNotificationSchema, () => void (listChanges += 1));
  await client.connect(transport);
  let closed = false;
  return agentOf(
    '2025-11-25',
    (name, args) => client.callTool({ name, arguments: args }),
    () => client.listTools(),
    {
      capability: () => client.getServerCapabilities()?.resources,
      list: async () => (await client.listResources()).resources,
      templates: async () => (await client.listResourceTemplates()).resourceTemplates,
      read: (uri) => client.readResource({ uri }) as ReturnType<AgentResources['read']>,
      follow: async (uri) => void (await client.subscribeResource({ uri })),
      updated,
      followList: () => Promise.resolve(),
      get listChanges() {
        return listChanges;
      },
    },
    async () => {
      if (closed) return;
      closed = true;
      await transport.terminateSession().catch(() => undefined);
      await client.close();
    },
  );
}

/** The official v2 SDK client negotiating 2026-07-28 (sessionless requests over streamable HTTP). */
async function agentV2(url: URL, options: AgentOptions): Promise<Agent> {
  const { elicit } = options;
  const client = new ClientV2(
    { name: 'agent-2026', version: '1' },
    { versionNegotiation: { mode: 'auto' }, ...(elicit ? { capabilities: { elicitation: {} } } : {}) },
  );
  if (elicit) {
    client.setRequestHandler('elicitation/create', async (request) =>
      elicit((request.params as { message: string }).message),
    );
  }
  const updated: string[] = [];
  let listChanges = 0;
  client.setNotificationHandler('notifications/resources/updated', (n) => void updated.push(n.params.uri));
  client.setNotificationHandler('notifications/resources/list_changed', () => void (listChanges += 1));
  await client.connect(new HttpV2(url, requestInit(options)));
  const version = client.getNegotiatedProtocolVersion();
  if (version !== '2026-07-28') throw new Error(`the v2 client negotiated ${String(version)}`);
  let closed = false;
  const listens: { close(): Promise<void> }[] = [];
  return agentOf(
    '2026-07-28',
    (name, args) => client.callTool({ name, arguments: args }),
    async () => (await client.listTools()) as { tools: { name: string }[] },
    {
      capability: () => client.getServerCapabilities()?.resources,
      list: async () => (await client.listResources()).resources,
      templates: async () => (await client.listResourceTemplates()).resourceTemplates,
      read: (uri) => client.readResource({ uri }) as ReturnType<AgentResources['read']>,
      follow: async (uri) => void listens.push(await client.listen({ resourceSubscriptions: [uri] })),
      updated,
      followList: async () => void listens.push(await client.listen({ resourcesListChanged: true })),
      get listChanges() {
        return listChanges;
      },
    },
    async () => {
      if (closed) return;
      closed = true;
      for (const listen of listens.splice(0)) await listen.close().catch(() => undefined);
      await client.close();
    },
  );
}
