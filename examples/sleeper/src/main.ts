#!/usr/bin/env node
import { runServer } from '@robot-mcp-kit/server';
import { SleeperServer } from './sleeper.server.js';

// MCP_TRANSPORT=stdio|sse|streamable-http, MCP_HOST, MCP_PORT, RVC_CALLBACK_URL, RVC_EVENT_SECRET
await runServer(SleeperServer);
