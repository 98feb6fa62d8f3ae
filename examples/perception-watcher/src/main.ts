#!/usr/bin/env node
import { runServer } from '@robot-mcp-kit/server';
import { PerceptionWatcherServer } from './perception-watcher.server.js';

// MCP_TRANSPORT=stdio|sse|streamable-http, MCP_HOST, MCP_PORT, RVC_CALLBACK_URL, RVC_EVENT_SECRET,
// WATCHER_RATE_HZ, WATCHER_SEED
await runServer(PerceptionWatcherServer);
