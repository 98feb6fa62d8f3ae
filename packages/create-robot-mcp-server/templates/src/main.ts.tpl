#!/usr/bin/env node
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { runServer } from '@robot-mcp-kit/server';
import { plugins } from './plugins.js';
import { {{className}} } from './{{name}}.server.js';

// Local settings from .env next to package.json (see .env.example); variables already set win.
const envFile = fileURLToPath(new URL('../.env', import.meta.url));
if (existsSync(envFile)) process.loadEnvFile(envFile);

// This server's default transport; MCP_TRANSPORT overrides it.
process.env.MCP_TRANSPORT ??= '{{transport}}';

// Listens on MCP_TRANSPORT (MCP_HOST, MCP_PORT), pushes events to RVC_CALLBACK_URL signed with
// RVC_EVENT_SECRET, and shuts down cleanly on SIGINT / SIGTERM.
await runServer({{className}}, { plugins });
