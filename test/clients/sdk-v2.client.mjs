/*
 * The SDK v2 client (`@modelcontextprotocol/client`) pinned to 2026-07-28 over streamable HTTP, as
 * an agent without the tasks extension uses it: long-running tools answer with a TaskInfo. (The
 * 2026 tasks extension itself is driven by test/support/ext-tasks.client.mjs.) The value the SDK
 * hands its user is the CallToolResult; the scenario reads its structuredContent.
 *
 *   node test/clients/sdk-v2.client.mjs <url>
 */
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { report } from './client-scenario.mjs';

const [url] = process.argv.slice(2);
const client = new Client(
  { name: 'sdk-v2-scenario', version: '1' },
  { versionNegotiation: { mode: { pin: '2026-07-28' } } },
);
await client.connect(new StreamableHTTPClientTransport(new URL(url)));
await report(
  {
    list: async () => (await client.listTools()).tools.map((tool) => tool.name),
    call: async (name, args) => {
      const result = await client.callTool({ name, arguments: args });
      if (result.isError || result.structuredContent === undefined)
        throw new Error(`${name}: no structuredContent: ${JSON.stringify(result)}`);
      return result.structuredContent;
    },
  },
  () => client.close(),
);
