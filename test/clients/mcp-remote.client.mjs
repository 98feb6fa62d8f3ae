/*
 * mcp-remote (stdio <-> streamable HTTP, as Claude Desktop users run it) with a bearer token
 * (`--header "Authorization: Bearer …"`), driven by the official SDK client over stdio through it.
 * The value the SDK hands its user is the CallToolResult; the scenario reads its structuredContent.
 *
 *   node test/clients/mcp-remote.client.mjs <url> <token> <config dir>
 */
import { createRequire } from 'node:module';
import { dirname, resolve } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { report } from './client-scenario.mjs';

const [url, token, configDir] = process.argv.slice(2);
const require = createRequire(import.meta.url);
const proxy = resolve(dirname(require.resolve('mcp-remote/package.json')), 'dist/proxy.js');
const transport = new StdioClientTransport({
  command: process.execPath,
  args: [proxy, url, '--header', `Authorization: Bearer ${token}`, '--transport', 'http-only'],
  // mcp-remote keeps its state (OAuth client data, lock files) under MCP_REMOTE_CONFIG_DIR.
  env: { PATH: process.env.PATH ?? '', MCP_REMOTE_CONFIG_DIR: configDir },
  stderr: 'pipe',
});
let proxyLog = '';
transport.stderr?.on('data', (chunk) => (proxyLog += chunk.toString()));
const client = new Client({ name: 'through-mcp-remote', version: '1' });
try {
  await client.connect(transport);
} catch (error) {
  console.log(JSON.stringify({ error: `${String(error)}\nmcp-remote said: ${proxyLog}` }));
  process.exit(1);
}
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
