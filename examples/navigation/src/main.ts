#!/usr/bin/env node
import { runServer } from '@robot-mcp-kit/server';
import { NavigationServer } from './navigation.server.js';

// MCP_TRANSPORT=stdio|sse|streamable-http, MCP_HOST, MCP_PORT, RVC_CALLBACK_URL, RVC_EVENT_SECRET,
// NAV_SPEED_MPS, NAV_TICK_MS, NAV_CLOSED_DOORS, NAV_START
await runServer(NavigationServer);
