# Settings of {{name}}. Copy this file to .env (git-ignored) for local runs: dist/main.js loads it,
# and variables already set in the environment win. `npm run doctor` checks them.
# Under systemd put them in /etc/{{name}}/env instead (see deploy/{{name}}.service).

# The chat app's events endpoint: task events (progress, trigger_fired, task_done, ...) are POSTed
# there, signed. Unset: events are only logged at debug level, so the server runs standalone.
# RVC_CALLBACK_URL=http://127.0.0.1:8000/api/agent/events

# HMAC secret shared with the receiving app (its entry for this server, e.g. in mcp.yaml). Required when
# RVC_CALLBACK_URL is set. Generate one with: openssl rand -hex 32
# RVC_EVENT_SECRET=

# MCP transport: stdio (the client starts the server), streamable-http (/mcp) or sse (/sse).
# MCP_TRANSPORT={{transport}}

# Where the HTTP transports listen. Keep the loopback address unless a proxy in front
# authenticates callers: the tools move the robot.
# MCP_HOST=127.0.0.1
# MCP_PORT=9100

# error | warn | info | debug
# LOG_LEVEL=info
