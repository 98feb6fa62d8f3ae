/*
 * @langchain/mcp-adapters: MultiServerMCPClient over streamable HTTP with a bearer token; tools are
 * LangChain tools, invoked as an agent would. For a result of one text block with structuredContent,
 * invoke() hands the user that block carrying the `structuredContent` object; for a result of several
 * blocks (a long-running start: its TaskInfo text and the `tasks://{id}` resource_link) it hands the
 * blocks, and structuredContent goes only to the artifacts. The report says which shape each tool gave.
 *
 *   node test/clients/langchain-adapters.client.mjs <url> <token>
 */
import { MultiServerMCPClient } from '@langchain/mcp-adapters';
import { report } from './client-scenario.mjs';

const [url, token] = process.argv.slice(2);
const client = new MultiServerMCPClient({
  mcpServers: { nav: { transport: 'http', url, headers: { Authorization: `Bearer ${token}` } } },
  useStandardContentBlocks: false,
});
const shapes = {};
const tools = new Map((await client.getTools()).map((tool) => [tool.name, tool]));
await report(
  {
    list: async () => [...tools.keys()],
    call: async (name, args) => {
      const handed = await tools.get(name).invoke(args);
      if (Array.isArray(handed)) {
        shapes[name] = handed.map((block) => block.type + (block.url ? ` ${block.url.split(':')[0]}` : ''));
        return JSON.parse(handed.find((block) => block.type === 'text').text);
      }
      if (typeof handed !== 'object' || handed.structuredContent === undefined)
        throw new Error(`${name}: LangChain handed no structuredContent: ${JSON.stringify(handed)}`);
      shapes[name] = 'structuredContent';
      return handed.structuredContent;
    },
  },
  () => client.close(),
  () => ({ shapes }),
);
