#!/usr/bin/env node
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { RoslibRosConnection } from '@robot-mcp-kit/ros';
import { runServer } from '@robot-mcp-kit/server';
import { plugins } from './plugins.js';
import { {{className}} } from './{{name}}.server.js';

// Local settings from .env next to package.json (see .env.example); variables already set win.
const envFile = fileURLToPath(new URL('../.env', import.meta.url));
if (existsSync(envFile)) process.loadEnvFile(envFile);

// This server's default transport; MCP_TRANSPORT overrides it.
process.env.MCP_TRANSPORT ??= '{{transport}}';

// ROSBRIDGE_URL=ws://robot:9090 reaches the robot; unset, a simulated robot (the kit's rosbridge
// double) is started so that the server runs with one command.
let url = process.env.ROSBRIDGE_URL?.trim();
if (!url) {
  const { startRosbridgeDouble } = await import('@robot-mcp-kit/ros/testing');
  url = (await startRosbridgeDouble({ speedMps: 0.5 })).url;
  process.stderr.write(`ROSBRIDGE_URL is not set: simulated robot at ${url}\n`);
}
const connection = new RoslibRosConnection({ url, server: {{className}} });
await connection.whenConnected(10_000).catch(() => {
  process.stderr.write(`rosbridge at ${url} is not reachable yet; reconnecting with backoff\n`);
});

// Listens on MCP_TRANSPORT (MCP_HOST, MCP_PORT), pushes events to RVC_CALLBACK_URL signed with
// RVC_EVENT_SECRET, and shuts down cleanly on SIGINT / SIGTERM.
await runServer({{className}}, { instance: new {{className}}(connection), plugins });
