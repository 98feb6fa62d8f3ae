import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { toKebabCase, toSnakeCase } from '@robot-mcp-kit/core/rules';

/** Where the generated tests find their harness. */
export const HARNESS_PATH = 'test/support/harness.ts';

/**
 * The harness the tests of `className`'s tools use (project-relative): the project's
 * {@link HARNESS_PATH} when it boots that class or does not exist yet; otherwise (a project with
 * several servers, whose harness boots another one) `test/support/<class-in-kebab-case>.harness.ts`,
 * so that each generated test starts the server its tool was added to.
 */
export function harnessPathFor(root: string, className: string): string {
  const shared = join(root, HARNESS_PATH);
  if (!existsSync(shared) || bootsClass(readFileSync(shared, 'utf8'), className)) return HARNESS_PATH;
  return `test/support/${toKebabCase(toSnakeCase(className))}.harness.ts`;
}

/** Whether a harness's text boots `className` (`bootstrap(ClassName, ...)`). */
function bootsClass(text: string, className: string): boolean {
  const name = className.replaceAll('$', '\\$');
  return new RegExp(`\\bbootstrap\\(\\s*${name}\\b`).test(text);
}

/**
 * The test harness of a generated project (create-robot-mcp-server writes the same file), for
 * projects that lost theirs: boots the server in-process and connects the official MCP client.
 */
export function harnessText(className: string, serverSpecifier: string, pluginsSpecifier?: string): string {
  return [
    harnessImports(className, serverSpecifier, pluginsSpecifier),
    startServerText(className, Boolean(pluginsSpecifier)),
    CLIENT_HELPERS_TEXT,
  ].join('\n\n');
}

/** The harness's imports: the MCP client, the kit, the project's plugins (if any) and its server class. */
function harnessImports(className: string, serverSpecifier: string, pluginsSpecifier?: string): string {
  const pluginsImport = pluginsSpecifier ? `import { plugins } from '${pluginsSpecifier}';\n` : '';
  return `import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { bootstrap, type RobotMcpApp } from '@robot-mcp-kit/server';
import { InMemoryEventTransport, silentLogger } from '@robot-mcp-kit/server/testing';
${pluginsImport}import { ${className} } from '${serverSpecifier}';`;
}

/** `Harness` and `startServer`, which boots the server class like src/main.ts does. */
function startServerText(className: string, withPlugins: boolean): string {
  const pluginsOption = withPlugins ? 'plugins, ' : '';
  return `/** A server running in-process, with the official MCP client connected to it. */
export interface Harness {
  readonly app: RobotMcpApp;
  readonly client: Client;
  /** Every event the server pushed (instead of POSTing them to RVC_CALLBACK_URL). */
  readonly events: InMemoryEventTransport;
  close(): Promise<void>;
}

/**
 * Boots ${className} like src/main.ts does and connects a client through an in-memory pair;
 * \`readOnly: true\` is what \`--read-only\` does: only the tools that do not act are offered.
 */
export async function startServer(options: { readOnly?: boolean } = {}): Promise<Harness> {
  const events = new InMemoryEventTransport();
  const app = bootstrap(${className}, { ${pluginsOption}eventTransport: events, logger: silentLogger, env: {}, readOnly: options.readOnly });
  const [clientTransport, serverTransport] = InMemoryTransport.createLinkedPair();
  await app.connect(serverTransport);
  const client = new Client({ name: 'test', version: '1' });
  await client.connect(clientTransport);
  return {
    app,
    client,
    events,
    close: async () => {
      await client.close();
      await app.close();
    },
  };
}`;
}

/** `callTool` and `waitForTask`: the same for every project. */
const CLIENT_HELPERS_TEXT = `/** A tool's answer: its text, the text parsed as JSON when it is JSON, and the error flag. */
export interface ToolAnswer {
  readonly isError: boolean;
  readonly text: string;
  readonly json: Record<string, unknown>;
}

export async function callTool(client: Client, name: string, args: Record<string, unknown> = {}): Promise<ToolAnswer> {
  const result = await client.callTool({ name, arguments: args });
  const content = (result.content ?? []) as { type: string; text?: string }[];
  const text = content.map((part) => (part.type === 'text' ? (part.text ?? '') : '')).join('');
  let json: Record<string, unknown> = {};
  try {
    json = JSON.parse(text) as Record<string, unknown>;
  } catch {
    // not JSON: keep {}
  }
  return { isError: result.isError === true, text, json };
}

/** Polls get_task, as a client would, until the task is no longer running; returns its TaskInfo. */
export async function waitForTask(client: Client, taskId: string, timeoutMs = 10000): Promise<Record<string, unknown>> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const { json } = await callTool(client, 'get_task', { task_id: taskId });
    if (json.state !== 'running') return json;
    if (Date.now() > deadline) throw new Error(\`task \${taskId} is still running after \${timeoutMs} ms\`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}
`;
