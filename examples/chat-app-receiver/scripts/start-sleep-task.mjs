#!/usr/bin/env node
// Starts a sleeper task over MCP (streamable HTTP) and prints its TaskInfo; the events go to the app.
// Usage: node examples/chat-app-receiver/scripts/start-sleep-task.mjs [mcp-url] [duration_s] [--fail]
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';

const [url = 'http://127.0.0.1:9100/mcp', duration = '5'] = process.argv
  .slice(2)
  .filter((a) => !a.startsWith('--'));
const client = new Client({ name: 'start-sleep-task', version: '0.1.0' });
await client.connect(new StreamableHTTPClientTransport(new URL(url)));
const result = await client.callTool({
  name: 'sleep_task',
  arguments: {
    duration_s: Number(duration),
    fail: process.argv.includes('--fail'),
    triggers: [
      { type: 'eta_below', seconds: 2 },
      { type: 'progress_above', percent: 50 },
    ],
  },
});
console.log(result.isError ? result.content : JSON.stringify(result.structuredContent, null, 2));
await client.close();
